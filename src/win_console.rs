//! Windows: the exe is built as a GUI-subsystem program, so a double-click
//! opens the app without a console window beside it. Started from a
//! terminal, such a program has no standard handles, and the CLI verbs
//! would print nothing: [`attach_parent`] asks for the console of the
//! process that started it (`AttachConsole(ATTACH_PARENT_PROCESS)`) and
//! points each empty standard handle at it (`CONOUT$`, `CONIN$`). Handles
//! that are already there — output redirected to a file or a pipe, as a
//! script or CI gives it — are left alone. Started from Explorer there is
//! no parent console: the call fails and nothing changes.
//!
//! The one place the program calls the OS directly (`unsafe`): four
//! Win32 calls with no pointers kept past the call.
#![allow(unsafe_code)]

use windows_sys::Win32::Foundation::{GENERIC_READ, GENERIC_WRITE, HANDLE, INVALID_HANDLE_VALUE};
use windows_sys::Win32::Storage::FileSystem::{
    CreateFileW, FILE_SHARE_READ, FILE_SHARE_WRITE, OPEN_EXISTING,
};
use windows_sys::Win32::System::Console::{
    ATTACH_PARENT_PROCESS, AttachConsole, GetStdHandle, STD_ERROR_HANDLE, STD_HANDLE,
    STD_INPUT_HANDLE, STD_OUTPUT_HANDLE, SetStdHandle,
};

fn empty(h: HANDLE) -> bool {
    h.is_null() || h == INVALID_HANDLE_VALUE
}

/// Attaches to the parent's console when a standard handle is missing
/// (module docs). Call first in `main`, before anything prints.
pub fn attach_parent() {
    let slots = [
        (STD_INPUT_HANDLE, "CONIN$"),
        (STD_OUTPUT_HANDLE, "CONOUT$"),
        (STD_ERROR_HANDLE, "CONOUT$"),
    ];
    // SAFETY: GetStdHandle takes a constant and returns a handle value.
    let missing: Vec<(STD_HANDLE, &str)> = slots
        .into_iter()
        .filter(|(s, _)| empty(unsafe { GetStdHandle(*s) }))
        .collect();
    if missing.is_empty() {
        return;
    }
    // SAFETY: AttachConsole takes a process id constant.
    if unsafe { AttachConsole(ATTACH_PARENT_PROCESS) } == 0 {
        return;
    }
    for (slot, device) in missing {
        // After attaching, Windows may have filled the handle already.
        // SAFETY: as above.
        if !empty(unsafe { GetStdHandle(slot) }) {
            continue;
        }
        let name: Vec<u16> = device.encode_utf16().chain(std::iter::once(0)).collect();
        // SAFETY: `name` is a NUL-terminated UTF-16 string that outlives
        // the call; no security attributes, no template file.
        let h = unsafe {
            CreateFileW(
                name.as_ptr(),
                GENERIC_READ | GENERIC_WRITE,
                FILE_SHARE_READ | FILE_SHARE_WRITE,
                std::ptr::null(),
                OPEN_EXISTING,
                0,
                std::ptr::null_mut(),
            )
        };
        if !empty(h) {
            // SAFETY: `h` is a handle this process owns; the process keeps
            // it open as its standard handle until it exits.
            unsafe { SetStdHandle(slot, h) };
        }
    }
}
