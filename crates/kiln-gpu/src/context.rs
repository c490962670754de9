//! The headless GPU: adapter, device, queue, and waits that cannot hang.
//!
//! [`Gpu::new`] asks wgpu for an adapter without a surface (no window, no display), preferring
//! a discrete GPU and taking a software one (Mesa's lavapipe) when that is all there is. Every
//! wait on the GPU ([`Gpu::wait`], [`Gpu::read_buffer`]) has the timeout of [`GpuOptions`];
//! wgpu's errors are captured (never its default panic) and a lost device is noticed at the
//! next wait, each turned into a [`GpuError`].

use std::sync::mpsc;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use crate::GpuError;
use crate::layout::TextureLimits;

/// How to open the GPU.
#[derive(Clone, Debug, PartialEq)]
pub struct GpuOptions {
    /// Longest wait for one submission or one buffer read.
    pub timeout: Duration,
    /// Texture limits below the adapter's, to force the split layouts of
    /// [`crate::BoneTextureLayout`] (tests use it); `None`: the adapter's own.
    pub texture_limits: Option<TextureLimits>,
    /// Most bytes the bone texture may take.
    pub max_texture_bytes: u64,
    /// Take the first adapter whose name contains this (case-insensitive) instead of wgpu's
    /// choice.
    pub adapter_name: Option<String>,
}

impl Default for GpuOptions {
    /// Two minutes per wait, the adapter's limits, 1 GiB of bone texture, wgpu's choice of
    /// adapter.
    fn default() -> Self {
        GpuOptions {
            timeout: Duration::from_secs(120),
            texture_limits: None,
            max_texture_bytes: 1 << 30,
            adapter_name: None,
        }
    }
}

/// What the adapter is, for people.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AdapterSummary {
    /// The adapter's name, as the driver gives it (`llvmpipe (LLVM 19.1.7, 256 bits)`, …).
    pub name: String,
    /// `Vulkan`, `Metal`, `Dx12`, …
    pub backend: String,
    /// `DiscreteGpu`, `IntegratedGpu`, `Cpu` (software), …
    pub device_type: String,
    /// The driver's name (`llvmpipe`, …); may be empty.
    pub driver: String,
    /// The driver's version text; may be empty.
    pub driver_info: String,
}

impl std::fmt::Display for AdapterSummary {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} ({}, {}", self.name, self.backend, self.device_type)?;
        match (self.driver.is_empty(), self.driver_info.is_empty()) {
            (false, false) => write!(f, ", {} {})", self.driver, self.driver_info),
            (false, true) => write!(f, ", {})", self.driver),
            (true, false) => write!(f, ", {})", self.driver_info),
            (true, true) => write!(f, ")"),
        }
    }
}

/// An open GPU device.
pub struct Gpu {
    device: wgpu::Device,
    queue: wgpu::Queue,
    adapter: AdapterSummary,
    texture_limits: TextureLimits,
    options: GpuOptions,
    errors: Arc<Mutex<Vec<wgpu::Error>>>,
    lost: Arc<Mutex<Option<String>>>,
}

impl std::fmt::Debug for Gpu {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Gpu")
            .field("adapter", &self.adapter)
            .field("texture_limits", &self.texture_limits)
            .finish_non_exhaustive()
    }
}

impl Gpu {
    /// Opens the GPU: an adapter as [`GpuOptions`] asks, and a device with WebGPU's default
    /// limits raised to the adapter's for texture size, array layers, buffer and binding sizes
    /// and workgroup counts.
    pub fn new(options: &GpuOptions) -> Result<Gpu, GpuError> {
        let instance =
            wgpu::Instance::new(wgpu::InstanceDescriptor::new_without_display_handle_from_env());
        let adapter = match &options.adapter_name {
            Some(want) => {
                let want = want.to_lowercase();
                let all = pollster::block_on(instance.enumerate_adapters(wgpu::Backends::all()));
                let names: Vec<String> = all.iter().map(|a| a.get_info().name).collect();
                all.into_iter()
                    .find(|a| a.get_info().name.to_lowercase().contains(&want))
                    .ok_or_else(|| GpuError::NoAdapter {
                        reason: format!(
                            "none is called '{want}'; found: {}",
                            if names.is_empty() {
                                "none".into()
                            } else {
                                names.join(", ")
                            }
                        ),
                    })?
            }
            None => pollster::block_on(instance.request_adapter(&wgpu::RequestAdapterOptions {
                power_preference: wgpu::PowerPreference::HighPerformance,
                force_fallback_adapter: false,
                compatible_surface: None,
                apply_limit_buckets: false,
            }))
            .map_err(|e| GpuError::NoAdapter {
                reason: e.to_string(),
            })?,
        };
        let info = adapter.get_info();
        let summary = AdapterSummary {
            name: info.name.clone(),
            backend: format!("{:?}", info.backend),
            device_type: format!("{:?}", info.device_type),
            driver: info.driver.clone(),
            driver_info: info.driver_info.clone(),
        };
        let have = adapter.limits();
        // WebGPU's defaults (every Vulkan, Metal and DX12 adapter has them), raised to what
        // this adapter allows where the bone texture and the vertex buffers need room.
        let required = wgpu::Limits {
            max_texture_dimension_2d: have.max_texture_dimension_2d,
            max_texture_array_layers: have.max_texture_array_layers,
            max_buffer_size: have.max_buffer_size,
            max_storage_buffer_binding_size: have.max_storage_buffer_binding_size,
            max_compute_workgroups_per_dimension: have.max_compute_workgroups_per_dimension,
            ..wgpu::Limits::default()
        };
        let (device, queue) = pollster::block_on(adapter.request_device(&wgpu::DeviceDescriptor {
            label: Some("kiln-gpu"),
            required_features: wgpu::Features::empty(),
            required_limits: required.clone(),
            experimental_features: wgpu::ExperimentalFeatures::disabled(),
            memory_hints: wgpu::MemoryHints::Performance,
            trace: wgpu::Trace::Off,
        }))
        .map_err(|e| GpuError::RequestDevice {
            adapter: summary.to_string(),
            reason: e.to_string(),
        })?;
        let errors: Arc<Mutex<Vec<wgpu::Error>>> = Arc::default();
        let lost: Arc<Mutex<Option<String>>> = Arc::default();
        {
            let errors = errors.clone();
            device.on_uncaptured_error(Arc::new(move |e| {
                if let Ok(mut v) = errors.lock() {
                    v.push(e);
                }
            }));
            let lost = lost.clone();
            device.set_device_lost_callback(move |reason, message| {
                if let Ok(mut l) = lost.lock() {
                    l.get_or_insert_with(|| format!("{reason:?}: {message}"));
                }
            });
        }
        let device_limits = TextureLimits {
            max_dimension: required.max_texture_dimension_2d,
            max_layers: required.max_texture_array_layers,
        };
        let texture_limits = match options.texture_limits {
            Some(l) => TextureLimits {
                max_dimension: l.max_dimension.min(device_limits.max_dimension),
                max_layers: l.max_layers.min(device_limits.max_layers),
            },
            None => device_limits,
        };
        Ok(Gpu {
            device,
            queue,
            adapter: summary,
            texture_limits,
            options: options.clone(),
            errors,
            lost,
        })
    }

    /// The adapter in use.
    pub fn adapter(&self) -> &AdapterSummary {
        &self.adapter
    }

    /// The texture limits the bone texture is laid out for.
    pub fn texture_limits(&self) -> TextureLimits {
        self.texture_limits
    }

    /// The options the device was opened with.
    pub fn options(&self) -> &GpuOptions {
        &self.options
    }

    /// The wgpu device, for callers that record their own work on it.
    pub fn device(&self) -> &wgpu::Device {
        &self.device
    }

    /// The device's queue.
    pub fn queue(&self) -> &wgpu::Queue {
        &self.queue
    }

    /// Fails when the device is lost or wgpu reported an error since the last check.
    pub fn check(&self, what: &str) -> Result<(), GpuError> {
        if let Some(reason) = self.lost.lock().ok().and_then(|l| l.clone()) {
            return Err(GpuError::DeviceLost { reason });
        }
        let first = self
            .errors
            .lock()
            .ok()
            .and_then(|mut v| (!v.is_empty()).then(|| v.remove(0)));
        match first {
            None => Ok(()),
            Some(wgpu::Error::OutOfMemory { .. }) => {
                Err(GpuError::OutOfMemory { what: what.into() })
            }
            Some(e) => Err(GpuError::rejected(what, e)),
        }
    }

    /// Runs `f` inside validation and out-of-memory error scopes and turns what they caught
    /// into an error naming `what`.
    pub fn scoped<T>(&self, what: &str, f: impl FnOnce() -> T) -> Result<T, GpuError> {
        let oom = self.device.push_error_scope(wgpu::ErrorFilter::OutOfMemory);
        let validation = self.device.push_error_scope(wgpu::ErrorFilter::Validation);
        let value = f();
        let v = pollster::block_on(validation.pop());
        let o = pollster::block_on(oom.pop());
        self.check(what)?;
        if let Some(e) = o {
            let _ = e;
            return Err(GpuError::OutOfMemory { what: what.into() });
        }
        if let Some(e) = v {
            return Err(GpuError::rejected(what, e));
        }
        Ok(value)
    }

    /// Waits, at most the timeout, until `submission` has finished on the GPU.
    pub fn wait(&self, submission: wgpu::SubmissionIndex, what: &str) -> Result<(), GpuError> {
        self.check(what)?;
        let result = self.device.poll(wgpu::PollType::Wait {
            submission_index: Some(submission),
            timeout: Some(self.options.timeout),
        });
        self.check(what)?;
        match result {
            Ok(_) => Ok(()),
            Err(wgpu::PollError::Timeout) => Err(GpuError::Timeout {
                what: what.into(),
                timeout: self.options.timeout,
            }),
            Err(e) => Err(GpuError::rejected(what, e)),
        }
    }

    /// Maps `buffer` (created with `MAP_READ`) and copies its bytes out, waiting at most the
    /// timeout.
    pub fn read_buffer(&self, buffer: &wgpu::Buffer, what: &str) -> Result<Vec<u8>, GpuError> {
        self.check(what)?;
        let (tx, rx) = mpsc::channel();
        let slice = buffer.slice(..);
        slice.map_async(wgpu::MapMode::Read, move |r| {
            let _ = tx.send(r);
        });
        let deadline = Instant::now() + self.options.timeout;
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            let poll = self.device.poll(wgpu::PollType::Wait {
                submission_index: None,
                timeout: Some(left.max(Duration::from_millis(1))),
            });
            self.check(what)?;
            match rx.try_recv() {
                Ok(Ok(())) => break,
                Ok(Err(e)) => return Err(GpuError::rejected(what, e)),
                Err(mpsc::TryRecvError::Disconnected) => {
                    return Err(GpuError::DeviceLost {
                        reason: format!("the mapping of the buffer for {what} was dropped"),
                    });
                }
                Err(mpsc::TryRecvError::Empty) => {}
            }
            if matches!(poll, Err(wgpu::PollError::Timeout)) || Instant::now() >= deadline {
                return Err(GpuError::Timeout {
                    what: what.into(),
                    timeout: self.options.timeout,
                });
            }
            std::thread::sleep(Duration::from_millis(1));
        }
        let bytes = {
            let view = slice
                .get_mapped_range()
                .map_err(|e| GpuError::rejected(what, e))?;
            view.to_vec()
        };
        buffer.unmap();
        Ok(bytes)
    }

    /// A buffer of `size` bytes (at least 4), or an error when it exceeds the device's limit.
    pub(crate) fn buffer(
        &self,
        label: &str,
        size: u64,
        usage: wgpu::BufferUsages,
    ) -> Result<wgpu::Buffer, GpuError> {
        let max = self.device.limits().max_buffer_size;
        if size > max {
            return Err(GpuError::BufferLimit {
                label: label.into(),
                size,
                max,
            });
        }
        self.scoped(label, || {
            self.device.create_buffer(&wgpu::BufferDescriptor {
                label: Some(label),
                size: size.max(4).next_multiple_of(4),
                usage,
                mapped_at_creation: false,
            })
        })
    }

    /// [`Gpu::buffer`] sized for `data` (with `COPY_DST` added), `data` written into it: the
    /// limit check and error scope that `wgpu::util`'s `create_buffer_init` would skip.
    pub(crate) fn buffer_init(
        &self,
        label: &str,
        data: &[u8],
        usage: wgpu::BufferUsages,
    ) -> Result<wgpu::Buffer, GpuError> {
        let buffer = self.buffer(
            label,
            data.len() as u64,
            usage | wgpu::BufferUsages::COPY_DST,
        )?;
        if !data.is_empty() {
            self.queue().write_buffer(&buffer, 0, data);
        }
        Ok(buffer)
    }

    /// A 2D texture (array) of `format` holding `data` (rows of `bytes_per_row`, `size.height`
    /// rows per layer), created and written without an error scope (callers run it in
    /// [`Gpu::scoped`]), and its view as `dimension`.
    pub(crate) fn texture_with_data(
        &self,
        label: &str,
        size: wgpu::Extent3d,
        format: wgpu::TextureFormat,
        data: &[u8],
        bytes_per_row: u32,
        dimension: wgpu::TextureViewDimension,
    ) -> wgpu::TextureView {
        let texture = self.device.create_texture(&wgpu::TextureDescriptor {
            label: Some(label),
            size,
            mip_level_count: 1,
            sample_count: 1,
            dimension: wgpu::TextureDimension::D2,
            format,
            usage: wgpu::TextureUsages::TEXTURE_BINDING | wgpu::TextureUsages::COPY_DST,
            view_formats: &[],
        });
        self.queue().write_texture(
            wgpu::TexelCopyTextureInfo {
                texture: &texture,
                mip_level: 0,
                origin: wgpu::Origin3d::ZERO,
                aspect: wgpu::TextureAspect::All,
            },
            data,
            wgpu::TexelCopyBufferLayout {
                offset: 0,
                bytes_per_row: Some(bytes_per_row),
                rows_per_image: Some(size.height),
            },
            size,
        );
        texture.create_view(&wgpu::TextureViewDescriptor {
            label: Some(label),
            dimension: Some(dimension),
            ..Default::default()
        })
    }
}
