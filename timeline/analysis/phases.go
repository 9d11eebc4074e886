package analysis

import "time"

// PhaseOptions tunes how the Engine finds phases (Engine.Phases): its own
// are DefaultPhaseOptions; tests try others (NewEngineWith).
//
// The thresholds come from real reports of idle GPUs and the demos
// (docs/report.md, "The thresholds, and why", has the full argument):
//   - Healthy training reads 90-100 % utilisation and 60-85 % SM activity;
//     a GPU fed by a loader that cannot keep up reads 8-35 % (8-30 % and
//     11 % in two users' reports of starved GPUs, the input-bound sawtooth:
//     1-2 s bursts in each 5.5 s). BusyUtil 50 sits between the two on either signal.
//   - An idle GPU reads 0 %, with the odd 1-3 % from a monitor or display;
//     IdleUtil 5 keeps those quiet.
//   - An idle node's CPU sits under 5 %; the unet_optuna H200 trace, a
//     textbook stall (GPU at 0 % for 94 % of the time), kept ~20 % of a
//     64-CPU node busy loading data: HostBusyCPU 20.
//   - A single-threaded loader or a checkpoint writer pegs one core while
//     the rest of a big node idles (the input-bound and checkpoint demos,
//     a user's `NUM_WORKERS=0` loader): CoreBusyCPU 90 catches it.
type PhaseOptions struct {
	// Window is how finely activity is judged: each window's mean decides
	// its kind. Windows are aligned to multiples of Window since the Unix
	// epoch, so phases recomputed live every few seconds keep their edges.
	// Default 5 s: longer than the input-bound demo's longest burst, so a
	// sawtooth averages out instead of flickering.
	Window time.Duration
	// MinPhase: a phase shorter than this is absorbed into its neighbours,
	// so a two-second dip is not a phase. Default 10 s.
	MinPhase time.Duration
	// BusyUtil is the GPU activity (%) at or above which the GPUs are busy.
	// Default 50.
	BusyUtil float64
	// IdleUtil is the GPU activity (%) below which the GPUs are quiet.
	// Default 5.
	IdleUtil float64
	// HostBusyCPU is the host CPU (% of all cores) at or above which the
	// host counts as busy. Default 20.
	HostBusyCPU float64
	// CoreBusyCPU is the share (%) at or above which one busy core makes the
	// host busy. Default 90.
	CoreBusyCPU float64
	// JobBusyCPU is the wrapped job's CPU (% of one core) at or above which
	// the job is busy. Default 50: half a core of work while its GPUs wait
	// is the job doing something else; a job blocked on its GPUs or on a
	// socket uses a few percent.
	JobBusyCPU float64
	// IOWaitBusy is the host iowait (%) at or above which the host is busy
	// with storage (a checkpoint write, a slow network file system).
	// Default 10.
	IOWaitBusy float64
}

// DefaultPhaseOptions returns the documented defaults.
func DefaultPhaseOptions() PhaseOptions {
	return PhaseOptions{
		Window:      5 * time.Second,
		MinPhase:    10 * time.Second,
		BusyUtil:    50,
		IdleUtil:    5,
		HostBusyCPU: 20,
		CoreBusyCPU: 90,
		JobBusyCPU:  50,
		IOWaitBusy:  10,
	}
}
