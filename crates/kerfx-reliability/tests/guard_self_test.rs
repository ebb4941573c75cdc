//! The guard-page harness catches what it claims to: a kernel that reads one byte past its
//! input, or writes one byte before its output, dies with SIGSEGV; one that writes inside
//! the buffers' pages but outside the buffers is reported as a stray write. Each faulting
//! case runs in a child process (this test binary, re-run on one test by name).

use kerfx_ir::{DType, Error, Kernel};
use kerfx_reliability::*;
use std::os::unix::process::ExitStatusExt;
use std::process::Command;

/// What the misbehaving kernel does.
#[derive(Clone, Copy)]
enum Fault {
    ReadPastInputEnd,
    ReadBeforeInputStart,
    WritePastOutputEnd,
    WriteBeforeOutputStart,
    /// 8 bytes past the output end: within the page in the `Start` variant (a stray write),
    /// on the guard page in the `End` variant.
    WriteNearby,
    None,
}

struct Bad(Fault);

impl Kernel for Bad {
    fn dtype(&self) -> DType {
        DType::U8
    }
    fn input_shape(&self) -> Option<&[u64]> {
        Some(&[16])
    }
    fn output_shape(&self) -> &[u64] {
        &[16]
    }
    fn run_bytes(&self, input: Option<&[u8]>, output: &mut [u8]) -> Result<(), Error> {
        let input = input.unwrap_or_default();
        output.copy_from_slice(input);
        let (ip, op) = (input.as_ptr(), output.as_mut_ptr());
        // SAFETY: deliberately not: these are the out-of-bounds accesses under test.
        unsafe {
            match self.0 {
                Fault::ReadPastInputEnd => {
                    std::ptr::read_volatile(ip.add(input.len()));
                }
                Fault::ReadBeforeInputStart => {
                    std::ptr::read_volatile(ip.sub(1));
                }
                Fault::WritePastOutputEnd => std::ptr::write_volatile(op.add(output.len()), 1),
                Fault::WriteBeforeOutputStart => std::ptr::write_volatile(op.sub(1), 1),
                Fault::WriteNearby => {
                    // Past the end in the Start variant only (in the End variant the next
                    // byte is the guard page: stay in bounds there by checking the page).
                    let next = op as usize + output.len();
                    if !next.is_multiple_of(4096) {
                        std::ptr::write_volatile(op.add(output.len() + 8), 1);
                    }
                }
                Fault::None => {}
            }
        }
        Ok(())
    }
}

fn run_case(fault: Fault) -> Result<(), GuardFailure> {
    let input: Vec<u8> = (0..16).collect();
    run_guarded(&Bad(fault), Some(&input), &input, &run_bytes)
}

const CHILD: &str = "KERF_GUARD_SELF_TEST_CHILD";

/// Runs in the child: the fault named by the environment.
#[test]
fn child_case() {
    let fault = match std::env::var(CHILD).as_deref() {
        Ok("read_past_end") => Fault::ReadPastInputEnd,
        Ok("read_before_start") => Fault::ReadBeforeInputStart,
        Ok("write_past_end") => Fault::WritePastOutputEnd,
        Ok("write_before_start") => Fault::WriteBeforeOutputStart,
        _ => return, // not a child: nothing to do
    };
    // Each fault against the variant whose guard page it should hit.
    let flush = match fault {
        Fault::ReadPastInputEnd | Fault::WritePastOutputEnd => Flush::End,
        _ => Flush::Start,
    };
    let input = GuardedBuf::from_bytes(&(0..16).collect::<Vec<u8>>(), flush);
    let mut output = GuardedBuf::new(16, flush);
    let _ = Bad(fault).run_bytes(Some(input.as_slice()), output.as_mut_slice());
    // Reaching here means the fault went unnoticed: exit with a code the parent rejects.
    std::process::exit(3);
}

#[test]
fn out_of_bounds_accesses_die_with_sigsegv() {
    let exe = std::env::current_exe().unwrap();
    for case in ["read_past_end", "read_before_start", "write_past_end", "write_before_start"] {
        let status = Command::new(&exe)
            .args(["--exact", "child_case", "--nocapture", "--test-threads=1"])
            .env(CHILD, case)
            .output()
            .unwrap()
            .status;
        assert_eq!(status.signal(), Some(libc::SIGSEGV), "{case}: the child ended with {status:?}, not SIGSEGV");
    }
}

#[test]
fn stray_writes_inside_the_pages_are_reported_and_good_kernels_pass() {
    assert!(run_case(Fault::None).is_ok());
    // Through run_guarded, a write just before the output is caught in the first (End)
    // variant by the canary, before the Start variant would fault on it.
    match run_case(Fault::WriteBeforeOutputStart) {
        Err(GuardFailure::StrayWrite { flush: Flush::End, which: "output" }) => {}
        other => panic!("expected a stray write, got {other:?}"),
    }
    match run_case(Fault::WriteNearby) {
        Err(GuardFailure::StrayWrite { which: "output", .. }) => {}
        other => panic!("expected a stray write, got {other:?}"),
    }
}
