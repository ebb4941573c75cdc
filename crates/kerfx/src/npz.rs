//! `.npz` files, numpy's `np.savez` format: a zip archive of one `NAME.npy` entry per
//! array. Written with stored (uncompressed) entries as `np.savez` writes them; read
//! stored or deflated (`np.savez_compressed`). Each entry is an `.npy` of [`crate::npy`].

use crate::{DType, FileError, Tensor, npy};
use std::borrow::Borrow;
use std::io::{self, Read, Seek, Write};
use std::path::{Path, PathBuf};

fn npz_error(path: &Path, detail: String) -> FileError {
    FileError::Npy { path: path.to_path_buf(), detail }
}

/// Read every array of an `.npz` file (a regular file), in the archive's order, by name (the entry's
/// name without `.npy`).
pub fn read(path: &Path) -> Result<Vec<(String, Tensor)>, FileError> {
    read_as(path, &|_| None)
}

/// [`read`], with per array name the kerf dtype to read a type numpy lacks as (see
/// [`crate::npy::read_as`]: bf16 stored as u2, int4 as one i1 per element, ...).
pub fn read_as(path: &Path, dtype: &dyn Fn(&str) -> Option<DType>) -> Result<Vec<(String, Tensor)>, FileError> {
    // A regular file only: a FIFO or device is refused, not waited on.
    let (file, _) = crate::file::open_regular(path, "cannot open")?;
    from_reader_as(io::BufReader::new(file), path, dtype)
}

/// Read the arrays of an `.npz` archive from `r` (`path` names it in errors).
pub fn from_reader<R: Read + Seek>(r: R, path: &Path) -> Result<Vec<(String, Tensor)>, FileError> {
    from_reader_as(r, path, &|_| None)
}

fn from_reader_as<R: Read + Seek>(
    r: R,
    path: &Path,
    dtype: &dyn Fn(&str) -> Option<DType>,
) -> Result<Vec<(String, Tensor)>, FileError> {
    let mut archive = zip::ZipArchive::new(r).map_err(|e| npz_error(path, format!("not an .npz (zip) file: {e}")))?;
    let mut out = Vec::with_capacity(archive.len());
    for i in 0..archive.len() {
        let mut entry = archive.by_index(i).map_err(|e| npz_error(path, format!("entry {i}: {e}")))?;
        let entry_name = entry.name().to_string();
        let Some(name) = entry_name.strip_suffix(".npy") else {
            return Err(npz_error(path, format!("entry `{entry_name}` is not an .npy array")));
        };
        let size = entry.size();
        // The declared size bounds what is read (a deflated entry may claim less than it
        // inflates to); memory grows with the bytes actually read.
        let mut bytes = Vec::new();
        (&mut entry)
            .take(size.saturating_add(1))
            .read_to_end(&mut bytes)
            .map_err(|e| npz_error(path, format!("entry `{entry_name}`: {e}")))?;
        if bytes.len() as u64 != size {
            return Err(npz_error(path, format!("entry `{entry_name}` does not hold the {size} bytes it declares")));
        }
        let shown = PathBuf::from(format!("{}:{entry_name}", path.display()));
        out.push((name.to_string(), npy::from_bytes(&bytes, &shown, dtype(name))?));
    }
    Ok(out)
}

/// Counts bytes written (the size of an entry before it is written).
struct Count(u64);

impl Write for Count {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.0 += buf.len() as u64;
        Ok(buf.len())
    }
    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

/// Write arrays as an `.npz` archive (stored entries `NAME.npy`, in order) to `w`.
/// Names must be distinct and non-empty.
pub fn to_writer<W: Write + Seek, T: Borrow<Tensor>>(w: W, arrays: &[(String, T)]) -> io::Result<()> {
    let mut zip = zip::ZipWriter::new(w);
    let mut seen = std::collections::BTreeSet::new();
    for (name, t) in arrays {
        let t = t.borrow();
        if name.is_empty() || !seen.insert(name.as_str()) {
            return Err(io::Error::other(format!("array name `{name}` is empty or given twice")));
        }
        let mut count = Count(0);
        npy::to_writer(&mut count, t)?;
        let options = zip::write::SimpleFileOptions::default()
            .compression_method(zip::CompressionMethod::Stored)
            .large_file(count.0 >= u64::from(u32::MAX))
            // A fixed time stamp: the same arrays give the same bytes.
            .last_modified_time(zip::DateTime::default());
        zip.start_file(format!("{name}.npy"), options).map_err(io::Error::other)?;
        npy::to_writer(&mut zip, t)?;
    }
    zip.finish().map_err(io::Error::other)?;
    Ok(())
}
