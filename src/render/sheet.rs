//! Contact sheets: tiles in a grid, each with a label strip drawn in a tiny
//! built-in bitmap font (digits and a few signs; no font file needed).

use super::input::TextureRgba;

/// 5×7 glyphs, one row per byte (bit 4 = leftmost column).
fn glyph(c: char) -> Option<[u8; 7]> {
    Some(match c {
        '0' => [0x0e, 0x11, 0x13, 0x15, 0x19, 0x11, 0x0e],
        '1' => [0x04, 0x0c, 0x04, 0x04, 0x04, 0x04, 0x0e],
        '2' => [0x0e, 0x11, 0x01, 0x02, 0x04, 0x08, 0x1f],
        '3' => [0x1f, 0x02, 0x04, 0x02, 0x01, 0x11, 0x0e],
        '4' => [0x02, 0x06, 0x0a, 0x12, 0x1f, 0x02, 0x02],
        '5' => [0x1f, 0x10, 0x1e, 0x01, 0x01, 0x11, 0x0e],
        '6' => [0x06, 0x08, 0x10, 0x1e, 0x11, 0x11, 0x0e],
        '7' => [0x1f, 0x01, 0x02, 0x04, 0x08, 0x08, 0x08],
        '8' => [0x0e, 0x11, 0x11, 0x0e, 0x11, 0x11, 0x0e],
        '9' => [0x0e, 0x11, 0x11, 0x0f, 0x01, 0x02, 0x0c],
        '#' => [0x0a, 0x0a, 0x1f, 0x0a, 0x1f, 0x0a, 0x0a],
        '-' => [0x00, 0x00, 0x00, 0x1f, 0x00, 0x00, 0x00],
        '(' => [0x02, 0x04, 0x08, 0x08, 0x08, 0x04, 0x02],
        ')' => [0x08, 0x04, 0x02, 0x02, 0x02, 0x04, 0x08],
        'f' => [0x06, 0x09, 0x08, 0x1c, 0x08, 0x08, 0x08],
        '.' => [0x00, 0x00, 0x00, 0x00, 0x00, 0x0c, 0x0c],
        ':' => [0x00, 0x0c, 0x0c, 0x00, 0x0c, 0x0c, 0x00],
        ' ' => [0; 7],
        _ => return None,
    })
}

/// Width in pixels of `text` drawn at `scale`.
pub fn text_width(text: &str, scale: u32) -> u32 {
    text.chars().count() as u32 * 6 * scale
}

/// Draws `text` with its top-left corner at (x, y); characters the font
/// lacks are drawn as a box outline so nothing silently disappears.
pub fn draw_text(img: &mut TextureRgba, x: u32, y: u32, text: &str, scale: u32, rgba: [u8; 4]) {
    let mut cx = x;
    for c in text.chars() {
        let rows = glyph(c).unwrap_or([0x1f, 0x11, 0x11, 0x11, 0x11, 0x11, 0x1f]);
        for (ry, bits) in rows.iter().enumerate() {
            for rx in 0..5u32 {
                if bits & (0x10 >> rx) != 0 {
                    for sy in 0..scale {
                        for sx in 0..scale {
                            put(img, cx + rx * scale + sx, y + ry as u32 * scale + sy, rgba);
                        }
                    }
                }
            }
        }
        cx += 6 * scale;
    }
}

fn put(img: &mut TextureRgba, x: u32, y: u32, rgba: [u8; 4]) {
    if x < img.width && y < img.height {
        let i = ((y * img.width + x) * 4) as usize;
        img.pixels[i..i + 4].copy_from_slice(&rgba);
    }
}

/// Fills a rectangle (clipped to the image).
pub fn fill(img: &mut TextureRgba, x: u32, y: u32, w: u32, h: u32, rgba: [u8; 4]) {
    for yy in y..(y + h).min(img.height) {
        for xx in x..(x + w).min(img.width) {
            put(img, xx, yy, rgba);
        }
    }
}

/// Copies `tile` into `img` with its top-left at (x, y), clipped.
pub fn blit(img: &mut TextureRgba, tile: &TextureRgba, x: u32, y: u32) {
    for ty in 0..tile.height {
        let yy = y + ty;
        if yy >= img.height {
            break;
        }
        let w = tile.width.min(img.width.saturating_sub(x));
        let src = (ty * tile.width * 4) as usize;
        let dst = ((yy * img.width + x) * 4) as usize;
        img.pixels[dst..dst + (w * 4) as usize]
            .copy_from_slice(&tile.pixels[src..src + (w * 4) as usize]);
    }
}

/// Grid geometry of a contact sheet.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SheetLayout {
    pub columns: u32,
    pub rows: u32,
    pub tile_width: u32,
    pub tile_height: u32,
    /// Height of the label strip under each tile.
    pub label_height: u32,
    pub gap: u32,
}

impl SheetLayout {
    /// `count` tiles of `tile_width`×`tile_height`, in `columns` columns
    /// (0: about as many columns as rows would make the sheet roughly 16:9).
    pub fn new(count: u32, tile_width: u32, tile_height: u32, columns: u32) -> SheetLayout {
        let label_height = 7 * Self::label_scale(tile_width) + 8;
        let columns = if columns > 0 {
            columns
        } else {
            // Choose the column count whose sheet is closest to 16:9.
            (1..=count.max(1))
                .min_by(|a, b| {
                    let ratio = |c: u32| {
                        let rows = count.div_ceil(c).max(1);
                        let w = (c * tile_width) as f32;
                        let h = (rows * (tile_height + label_height)) as f32;
                        ((w / h) / (16.0 / 9.0)).ln().abs()
                    };
                    ratio(*a).total_cmp(&ratio(*b))
                })
                .unwrap_or(1)
        };
        SheetLayout {
            columns,
            rows: count.div_ceil(columns).max(1),
            tile_width,
            tile_height,
            label_height,
            gap: 4,
        }
    }

    /// Font scale for labels under tiles this wide.
    pub fn label_scale(tile_width: u32) -> u32 {
        if tile_width >= 400 {
            3
        } else if tile_width >= 200 {
            2
        } else {
            1
        }
    }

    pub fn width(&self) -> u32 {
        self.columns * (self.tile_width + self.gap) + self.gap
    }

    pub fn height(&self) -> u32 {
        self.rows * (self.tile_height + self.label_height + self.gap) + self.gap
    }

    /// Top-left corner of tile `i`.
    pub fn origin(&self, i: u32) -> (u32, u32) {
        let (c, r) = (i % self.columns, i / self.columns);
        (
            self.gap + c * (self.tile_width + self.gap),
            self.gap + r * (self.tile_height + self.label_height + self.gap),
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn digits_are_drawn_where_asked() {
        let mut img = TextureRgba::solid(40, 10, [0, 0, 0, 255]);
        draw_text(&mut img, 1, 1, "1", 1, [255; 4]);
        // '1' row 0 is 0x04: only column 2 lit → pixel (3, 1).
        assert_eq!(img.pixel(3, 1), Some([255; 4]));
        assert_eq!(img.pixel(2, 1), Some([0, 0, 0, 255]));
        // Bottom row 0x0e: columns 1..=3 → pixels 2..=4 on row 7.
        for x in 2..=4 {
            assert_eq!(img.pixel(x, 7), Some([255; 4]));
        }
        assert_eq!(text_width("12", 2), 24);
    }

    #[test]
    fn layout_of_164_tiles_is_wide_and_holds_them_all() {
        let l = SheetLayout::new(164, 320, 180, 0);
        assert!(l.columns * l.rows >= 164 && l.columns * (l.rows - 1) < 164);
        let ratio = l.width() as f32 / l.height() as f32;
        assert!((1.2..2.4).contains(&ratio), "{ratio} {l:?}");
        let (x, y) = l.origin(l.columns + 1);
        assert_eq!(x, l.gap * 2 + l.tile_width);
        assert_eq!(y, l.gap * 2 + l.tile_height + l.label_height);
    }

    #[test]
    fn blit_clips_at_the_edges() {
        let mut img = TextureRgba::solid(4, 4, [0, 0, 0, 255]);
        let tile = TextureRgba::solid(3, 3, [9, 9, 9, 255]);
        blit(&mut img, &tile, 2, 2);
        assert_eq!(img.pixel(3, 3), Some([9, 9, 9, 255]));
        assert_eq!(img.pixel(1, 1), Some([0, 0, 0, 255]));
    }
}
