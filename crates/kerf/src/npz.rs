//! `.npz` files (numpy's `np.savez`): a zip archive of one `.npy` entry per array, named
//! `<name>.npy`. kerf writes them for ops with several outputs (`kerf run -o OUT.npz`), one
//! entry per output, and reads them (stored entries, as `np.savez` writes them; each
//! entry read as [`crate::npy`] reads a file).

use crate::error::FileError;
use kerf_ir::{DType, Tensor};
use std::io::{self, Read, Seek, Write};
use std::path::Path;

fn npz_error(path: &Path, detail: impl std::fmt::Display) -> FileError {
    FileError::Npy { path: path.to_path_buf(), detail: format!(".npz: {detail}") }
}

/// Read every array of a `.npz` file, in archive order, by name (`.npy` stripped);
/// `dtype` gives, per name, the kerf dtype to read a numpy-less type as (see
/// [`crate::npy::read_as`]). A name holding `/` or `..`, an entry that is not stored
/// uncompressed, or one larger than the file itself is refused.
pub fn read_as(path: &Path, dtype: &dyn Fn(&str) -> Option<DType>) -> Result<Vec<(String, Tensor)>, FileError> {
    let (file, len) = crate::file::open_regular(path, "cannot open")?;
    let mut archive = zip::ZipArchive::new(io::BufReader::new(file)).map_err(|e| npz_error(path, e))?;
    let mut out = Vec::with_capacity(archive.len().min(1 << 16));
    for k in 0..archive.len() {
        let mut entry = archive.by_index(k).map_err(|e| npz_error(path, e))?;
        let name = entry.name().to_string();
        let Some(stem) = name.strip_suffix(".npy").filter(|s| !s.contains('/') && !s.contains("..")) else {
            return Err(npz_error(path, format!("entry `{name}` is not an array (`NAME.npy`)")));
        };
        if entry.compression() != zip::CompressionMethod::Stored {
            return Err(npz_error(path, format!("entry `{name}` is compressed; kerf reads np.savez's stored entries")));
        }
        // The archive's sizes are the file's to keep: a stored entry is never larger.
        if entry.size() > len {
            return Err(npz_error(path, format!("entry `{name}` claims {} bytes, more than the file", entry.size())));
        }
        let mut bytes = Vec::with_capacity(entry.size() as usize);
        entry.read_to_end(&mut bytes).map_err(|e| FileError::io(path, "cannot read", e))?;
        let tensor = crate::npy::from_bytes(&bytes, &path.join(&name), dtype(stem))?;
        out.push((stem.to_string(), tensor));
    }
    Ok(out)
}

/// Read every array of a `.npz` file as its own dtype.
pub fn read(path: &Path) -> Result<Vec<(String, Tensor)>, FileError> {
    read_as(path, &|_| None)
}

/// Write `arrays` (name, tensor) as a `.npz` archive (stored entries, as `np.savez`).
pub fn to_writer<W: Write + Seek>(w: W, arrays: &[(String, &Tensor)]) -> io::Result<()> {
    let mut zip = zip::ZipWriter::new(w);
    // A fixed time stamp: the same arrays give the same bytes.
    let options = zip::write::SimpleFileOptions::default()
        .compression_method(zip::CompressionMethod::Stored)
        .large_file(true)
        .last_modified_time(zip::DateTime::default());
    for (name, t) in arrays {
        zip.start_file(format!("{name}.npy"), options).map_err(io::Error::other)?;
        crate::npy::to_writer(&mut zip, t)?;
    }
    zip.finish().map_err(io::Error::other)?;
    Ok(())
}

/// Write `arrays` to `path` atomically (see [`crate::npy::write`]): on error nothing is
/// left behind and an existing file is untouched.
pub fn write(path: &Path, arrays: &[(String, &Tensor)]) -> Result<(), FileError> {
    crate::npy::write_atomic(path, &mut |w| {
        let mut buf = io::Cursor::new(Vec::new());
        to_writer(&mut buf, arrays)?;
        w.write_all(buf.get_ref())
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn arrays_round_trip_by_name_and_order() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("out.npz");
        let a = Tensor::from_i64s(&[1, 2, 3]);
        let b = Tensor::from_bytes(DType::F32, &[2], &[0, 0, 128, 63, 0, 0, 0, 64]).unwrap();
        write(&path, &[("outputs_0".into(), &a), ("outputs_1".into(), &b)]).unwrap();
        let back = read(&path).unwrap();
        assert_eq!(back, vec![("outputs_0".to_string(), a), ("outputs_1".to_string(), b)]);
    }

    #[test]
    fn a_file_that_is_not_a_zip_is_an_error_naming_it() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("bad.npz");
        std::fs::write(&path, b"not a zip").unwrap();
        let e = read(&path).unwrap_err().to_string();
        assert!(e.contains("bad.npz") && e.contains(".npz"), "{e}");
    }
}
