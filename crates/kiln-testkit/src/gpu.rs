//! The GPU for kiln-gpu's tests (feature `gpu`).

use kiln_gpu::{Gpu, GpuOptions};

/// The GPU, or a failure with the install hint: CI installs Mesa's lavapipe, so a missing
/// adapter is a broken setup, not a reason to skip.
pub fn gpu_with(options: &GpuOptions) -> Gpu {
    match Gpu::new(options) {
        Ok(g) => g,
        Err(e) => panic!(
            "{e}\nthese tests need a GPU adapter; Mesa's software Vulkan driver is enough: \
             apt-get install -y mesa-vulkan-drivers (scripts/test installs it)"
        ),
    }
}

/// [`gpu_with`] the default options.
pub fn gpu() -> Gpu {
    gpu_with(&GpuOptions::default())
}
