//! The one error type of kiln-gpu.

use std::time::Duration;

/// Why a GPU operation failed. Every variant says what to do or what was wrong; none of them
/// is raised by a panic or a hang (waits on the GPU have a timeout).
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum GpuError {
    /// No adapter (no Vulkan, Metal or DX12 device, not even a software one).
    #[error(
        "no GPU adapter found ({reason}); for a software one on Debian/Ubuntu: apt-get install mesa-vulkan-drivers"
    )]
    NoAdapter {
        /// What wgpu said, or which adapter names were found when one was asked for by name.
        reason: String,
    },
    /// The adapter refused to create a device.
    #[error("the GPU adapter '{adapter}' could not create a device: {reason}")]
    RequestDevice {
        /// The adapter's name.
        adapter: String,
        /// What wgpu said.
        reason: String,
    },
    /// The device was lost (driver reset, out of memory, destroyed).
    #[error("the GPU device was lost: {reason}")]
    DeviceLost {
        /// What wgpu said.
        reason: String,
    },
    /// The GPU did not finish in time.
    #[error("the GPU did not finish {what} within {:.1} s", timeout.as_secs_f64())]
    Timeout {
        /// The work waited for.
        what: String,
        /// How long it was waited for ([`crate::GpuOptions`]).
        timeout: Duration,
    },
    /// wgpu rejected a call (a kiln-gpu bug or a limit the checks missed).
    #[error("the GPU rejected {what}: {reason}")]
    Rejected {
        /// The call or the work it was part of.
        what: String,
        /// What wgpu said.
        reason: String,
    },
    /// The GPU ran out of memory.
    #[error("the GPU ran out of memory while {what}")]
    OutOfMemory {
        /// The work it was doing.
        what: String,
    },
    /// The bone texture does not fit the adapter's texture limits even when split.
    #[error("{what}: more than the GPU's texture limits allow ({limits})")]
    TextureLimits {
        /// What does not fit (the bake's shape).
        what: String,
        /// The adapter's limits, for people.
        limits: String,
    },
    /// The bone texture is larger than the memory budget of [`crate::GpuOptions`].
    #[error("the bone texture would take {bytes} bytes, more than the budget of {budget} bytes")]
    TextureBudget {
        /// Bytes the texture would take.
        bytes: u64,
        /// The budget, [`crate::GpuOptions`]'s.
        budget: u64,
    },
    /// Model and bake do not belong together.
    #[error("the bake has {bake_bones} bones but the model has {model_bones}")]
    BoneCountMismatch {
        /// Bones of the bake (or of the skeleton its clips were bound to).
        bake_bones: usize,
        /// Bones of the model.
        model_bones: usize,
    },
    /// A vertex that cannot be skinned (a blend index that is not a bone, a weight that is not
    /// finite).
    #[error("{0}")]
    BadVertex(String),
    /// A clip, frame or time outside the bake.
    #[error("{0}")]
    OutOfRange(String),
    /// Bad input of another kind (an empty model, a malformed bake).
    #[error("{0}")]
    Input(String),
    /// The model could not be baked ([`kiln_anim::bake_model`]); prints as the error it wraps.
    #[error(transparent)]
    Bake(#[from] kiln_anim::BakeModelError),
}

impl GpuError {
    pub(crate) fn rejected(what: impl Into<String>, e: impl std::fmt::Display) -> GpuError {
        GpuError::Rejected {
            what: what.into(),
            reason: e.to_string(),
        }
    }

    /// Whether this error means that no GPU could be used at all (no adapter or no device):
    /// the CLI's distinct exit status.
    pub fn is_unavailable(&self) -> bool {
        matches!(
            self,
            GpuError::NoAdapter { .. } | GpuError::RequestDevice { .. }
        )
    }
}
