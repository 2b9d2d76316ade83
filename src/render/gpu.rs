//! A GPU device with no window, for the CLI (`render`, `storyboard`) and the
//! offscreen tests. The app uses eframe's device instead.

use super::RenderError;

/// An adapter, its device and queue.
pub struct Gpu {
    pub adapter: wgpu::Adapter,
    pub device: wgpu::Device,
    pub queue: wgpu::Queue,
}

impl Gpu {
    /// Asks wgpu for any adapter (backends from `WGPU_BACKEND`, default all;
    /// a software one such as Mesa's lavapipe is fine) and opens a device with
    /// the adapter's downlevel-default limits.
    pub fn headless() -> Result<Gpu, RenderError> {
        let options = wgpu::RequestAdapterOptions {
            power_preference: wgpu::PowerPreference::from_env().unwrap_or_default(),
            force_fallback_adapter: false,
            compatible_surface: None,
            apply_limit_buckets: false,
        };
        let fallback = wgpu::RequestAdapterOptions {
            force_fallback_adapter: true,
            ..options.clone()
        };
        // Without WGPU_BACKEND, try the primary backends (Vulkan, Metal,
        // DX12) first: probing GL/EGL on a headless Linux box only prints
        // noise. Then every backend, then a software fallback.
        let mut tries = Vec::new();
        if std::env::var_os("WGPU_BACKEND").is_none() {
            let mut d = wgpu::InstanceDescriptor::new_without_display_handle_from_env();
            d.backends = wgpu::Backends::PRIMARY;
            tries.push(d);
        }
        tries.push(wgpu::InstanceDescriptor::new_without_display_handle_from_env());
        let mut last_error = String::from("no backend tried");
        let mut found = None;
        'search: for desc in tries {
            let instance = wgpu::Instance::new(desc);
            for o in [&options, &fallback] {
                match pollster::block_on(instance.request_adapter(o)) {
                    Ok(a) => {
                        found = Some(a);
                        break 'search;
                    }
                    Err(e) => last_error = e.to_string(),
                }
            }
        }
        let adapter = found.ok_or(RenderError::NoAdapter(last_error))?;
        let limits = wgpu::Limits::downlevel_defaults().using_resolution(adapter.limits());
        let (device, queue) = pollster::block_on(adapter.request_device(&wgpu::DeviceDescriptor {
            label: Some("vmd-studio headless"),
            required_features: wgpu::Features::empty(),
            required_limits: limits,
            experimental_features: wgpu::ExperimentalFeatures::disabled(),
            memory_hints: wgpu::MemoryHints::Performance,
            trace: wgpu::Trace::Off,
        }))
        .map_err(|e| RenderError::NoAdapter(e.to_string()))?;
        Ok(Gpu {
            adapter,
            device,
            queue,
        })
    }

    /// "llvmpipe (Vulkan, Cpu)" and the like, for logs and reports.
    pub fn describe(&self) -> String {
        let info = self.adapter.get_info();
        format!("{} ({:?}, {:?})", info.name, info.backend, info.device_type)
    }

    /// The MSAA sample count to use for `format` (4 where the adapter allows
    /// it, else 1).
    pub fn msaa_samples(&self, format: wgpu::TextureFormat) -> u32 {
        msaa_samples(&self.adapter, format)
    }
}

/// 4 when `adapter` can multisample both `format` and the depth buffer 4×, else 1.
pub fn msaa_samples(adapter: &wgpu::Adapter, format: wgpu::TextureFormat) -> u32 {
    let color = adapter.get_texture_format_features(format).flags;
    let depth = adapter
        .get_texture_format_features(super::DEPTH_FORMAT)
        .flags;
    if color.sample_count_supported(4) && depth.sample_count_supported(4) {
        4
    } else {
        1
    }
}
