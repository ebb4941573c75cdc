//! The compile target of the code generator: triple, CPU preset, position independence
//! and calling convention. The JIT compiles for the host ([`Target::host`]: the values it
//! always had); ahead-of-time objects for a conservative preset of an architecture
//! ([`Target::aot`]), from the same nests and emitters.

use crate::jit_error;
use cranelift_codegen::isa::{CallConv, OwnedTargetIsa};
use cranelift_codegen::settings::{self, Configurable};
use kerfx_ir::Error;

/// The CPU features code may use.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Cpu {
    /// Whatever the machine compiling has (the JIT: the code runs where it was compiled;
    /// ahead of time, `--cpu host`: for a fleet of machines like this one).
    Host,
    /// x86-64-v2 (SSE4.2, SSSE3, POPCNT; no AVX): every x86-64 CPU since about 2009.
    X86_64V2,
    /// Another of Cranelift's x86-64 presets (`x86-64-v3`: AVX2, BMI2, FMA; `x86-64-v4`;
    /// micro-architectures such as `haswell` or `znver1`), for users who own their fleet.
    X86Preset(String),
    /// The aarch64 baseline (ARMv8.0-A with NEON), no optional extension.
    Aarch64Baseline,
}

impl Cpu {
    /// The preset's name, as the header records it.
    pub fn name(&self) -> &str {
        match self {
            Cpu::Host => "host",
            Cpu::X86_64V2 => "x86-64-v2",
            Cpu::X86Preset(name) => name,
            Cpu::Aarch64Baseline => "aarch64-baseline",
        }
    }
}

/// What the code generator compiles for.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Target {
    /// The target triple (`None`: the host's).
    pub triple: Option<String>,
    /// The CPU features the code may use.
    pub cpu: Cpu,
    /// Position-independent code (objects linked into PIEs and shared libraries).
    pub pic: bool,
}

/// The triples ahead-of-time objects are made for (ELF, tested on Linux).
pub const AOT_TRIPLES: &[&str] = &["x86_64-unknown-linux-gnu", "aarch64-unknown-linux-gnu"];

impl Target {
    /// The JIT's target: the host, its CPU features, absolute addresses.
    pub fn host() -> Target {
        Target { triple: None, cpu: Cpu::Host, pic: false }
    }

    /// An ahead-of-time target: `triple` (one of [`AOT_TRIPLES`]) at its architecture's
    /// conservative preset, position independent.
    pub fn aot(triple: &str) -> Result<Target, Error> {
        let cpu = match triple {
            "x86_64-unknown-linux-gnu" => Cpu::X86_64V2,
            "aarch64-unknown-linux-gnu" => Cpu::Aarch64Baseline,
            _ => {
                return Err(Error::Invalid {
                    what: format!("target {triple:?}: kerf writes objects for {}", AOT_TRIPLES.join(", ")),
                });
            }
        };
        Ok(Target { triple: Some(triple.to_string()), cpu, pic: true })
    }

    /// An ahead-of-time target for `triple` and the CPU preset named `cpu`: the
    /// architecture's conservative preset by its name (`x86-64-v2`, `aarch64-baseline`),
    /// `host` (the features of the machine compiling, which must be of the triple's
    /// architecture), or on x86-64 any of Cranelift's presets (`x86-64-v3`, `haswell`, …).
    /// An object for a preset above the conservative one runs only on CPUs that have its
    /// features: the header records the preset.
    pub fn aot_cpu(triple: &str, cpu: &str) -> Result<Target, Error> {
        let mut target = Target::aot(triple)?;
        let arch = triple.split('-').next().unwrap_or_default();
        let invalid = |what: String| Error::Invalid { what };
        target.cpu = match cpu {
            _ if cpu == target.cpu.name() => return Ok(target),
            "host" if arch == std::env::consts::ARCH => Cpu::Host,
            "host" => {
                return Err(invalid(format!(
                    "cpu \"host\": this machine is {}, the target {arch}; name a preset of the target instead",
                    std::env::consts::ARCH
                )));
            }
            _ if arch == "x86_64" => Cpu::X86Preset(cpu.to_string()),
            _ => {
                return Err(invalid(format!("cpu {cpu:?}: {triple} takes \"{}\" or \"host\"", target.cpu.name())));
            }
        };
        // Refused now, naming the preset, rather than at the first kernel.
        target.isa("backtracking").map_err(|_| {
            invalid(format!("cpu {cpu:?}: Cranelift has no such preset for {arch} (x86-64-v2, x86-64-v3, x86-64-v4, haswell, skylake, znver1, …)"))
        })?;
        Ok(target)
    }

    /// The ISA with `regalloc` as its register allocator, and the calling convention
    /// kernels are compiled with.
    pub(crate) fn isa(&self, regalloc: &str) -> Result<(OwnedTargetIsa, CallConv), Error> {
        let mut flags = settings::builder();
        // No mid-end: the emitters fold their constants, keep loop-invariant values
        // out of loops and schedule independent work, so the mid-end would only cost
        // compile time (a third to a half of it) for the same machine code.
        flags.set("opt_level", "none").map_err(jit_error)?;
        flags.set("regalloc_algorithm", regalloc).map_err(jit_error)?;
        flags.set("use_colocated_libcalls", "false").map_err(jit_error)?;
        flags.set("is_pic", if self.pic { "true" } else { "false" }).map_err(jit_error)?;
        flags.set("enable_verifier", if cfg!(debug_assertions) { "true" } else { "false" }).map_err(jit_error)?;
        // The host's features come from the host (for the JIT, and for objects made for
        // machines like this one); a named triple's builder starts at its baseline.
        let mut isa_builder = match (&self.triple, &self.cpu) {
            (None, _) | (Some(_), Cpu::Host) => cranelift_native::builder().map_err(jit_error)?,
            (Some(t), _) => cranelift_codegen::isa::lookup_by_name(t).map_err(jit_error)?,
        };
        match &self.cpu {
            Cpu::Host | Cpu::Aarch64Baseline => {}
            Cpu::X86_64V2 => isa_builder.enable("x86-64-v2").map_err(jit_error)?,
            Cpu::X86Preset(name) => isa_builder.enable(name).map_err(jit_error)?,
        }
        // With AVX-512DQ Cranelift lowers every i64x2 multiply to `vpmullq` (15 cycles of
        // latency) rather than `pmuludq` patterns; nothing here gains from it. Off for
        // every x86-64 preset (x86-64-v2 never has it; elsewhere the setting does not
        // exist, and setting it is a no-op error).
        let _ = isa_builder.set("has_avx512dq", "false");
        let isa = isa_builder.finish(settings::Flags::new(flags)).map_err(jit_error)?;
        // The host's x86-64 kernels name System V explicitly, so that their IR text is
        // the same on every x86-64 host.
        let call_conv = match (&self.triple, cfg!(target_arch = "x86_64")) {
            (None, true) => CallConv::SystemV,
            _ => isa.default_call_conv(),
        };
        Ok((isa, call_conv))
    }
}
