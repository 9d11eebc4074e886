package accuracy

import (
	"time"

	"github.com/gputop-dev/gputop/timeline"
)

// RealLog is one of the real logs beside the repository
// (../shared/telemetry, never copied into it), with how its README says to
// import it and what an expert reads in it, as labels.
type RealLog struct {
	File string
	// Interval and Columns are `gputop import`'s --interval and --columns,
	// where the README gives them.
	Interval time.Duration
	Columns  string
	Case     Case
}

// end is "to the end of the log": a label's To past any log's length.
const end = 1000 * time.Hour

func sec(s float64) time.Duration { return time.Duration(s * float64(time.Second)) }

// RealLogs is every real log, labelled from its README's expert reading.
// Where gputop cannot see what the expert saw (the log lacks the signal),
// the label stays: the miss is published with its cause, not hidden.
func RealLogs() []RealLog {
	eight := []int{0, 1, 2, 3, 4, 5, 6, 7}
	logs := []RealLog{
		{File: "vlm_llava_rtx4090_querygpu.csv", Case: Case{Healthy: true,
			Reading: "GPU-bound LLaVA inference with small per-request dips; power below the cap is memory-bound decode: no major bottleneck"}},
		{File: "llama8b_8xh100_ckpt100_querygpu_100ms_noindex.csv", Case: Case{
			Labels:  []Label{{ID: timeline.HintPeriodicStall, GPUs: eight, From: sec(90), To: sec(700)}},
			Reading: "rank-0 checkpoint stalls; GPUs 1-7 spin in NCCL at ~150W while GPU0 saves"}},
		{File: "gpt125m_2xtitanx_gloo_querygpu_100ms_noindex.csv", Case: Case{
			Labels:  []Label{{ID: timeline.HintLowUtilization, GPUs: []int{0, 1}, From: 0, To: end}},
			Reading: "both GPUs starved at 25-30%: a tiny batch and gloo make each step communication and host bound"}},
		{File: "unet_optuna_h200_querygpu_2s.csv", Case: Case{
			Labels: []Label{{ID: timeline.HintLowUtilization, GPUs: []int{0}, From: 0, To: end}},
			May:    []string{timeline.HintGPUIdle},
			Reading: "GPU idle while the CPU loads data (the GPU log alone: a starved GPU, util ~1%); " +
				"the stretches with no kernel at all are idle"}},
		{File: "unet_optuna_h200_host_vmstat_1s.log", Case: Case{
			Labels:  []Label{{ID: timeline.HintInputBound, From: 0, To: end}},
			Why:     "gputop imports no vmstat log: the host's CPU never reaches the rules, so only the GPU log's low-utilization is said",
			Reading: "the same run's host: ~30 runnable threads while the GPU idles, the input pipeline cannot feed the H200"}},
		{File: "nanogpt_8xh100_colocation_querygpu_300ms.csv", Case: Case{
			Labels: []Label{
				{ID: timeline.HintGPUImbalance, GPUs: []int{0, 1, 2, 3}, From: sec(1095), To: sec(1185)},
				{ID: timeline.HintPowerCapped, GPUs: eight, From: 0, To: sec(1095)}},
			Why: "the log has neither the power limit, the SM clock nor clock-event reasons; power flat at the run's peak " +
				"is also what a steady workload draws, so power-capped stays silent (the expert knows the card's 700W)",
			Reading: "training held at the 700W power cap; GPUs 0-3 idle ~90s while 4-7 work; GPU1 hotter (73°C) but not throttled"}},
		{File: "vgg16_tf_v100_dmon.dmon", Case: Case{
			Labels:  []Label{{ID: timeline.HintGPUIdle, GPUs: []int{0}, From: sec(60), To: end}},
			May:     []string{timeline.HintPeriodicStall},
			Reading: "a GPU-bound benchmark for a minute, then ~2.9h idle because the monitor was never stopped"}},
		{File: "ollama_slm_rtx5070laptop_dmon.log", Case: Case{Healthy: true,
			Reading: "request-driven inference; the GPU idles between prompts for the client: not a bottleneck"}},
		{File: "resnet50_train_a100mig_dcgmi_gract_1s.csv", Case: Case{
			Labels:  []Label{{ID: timeline.HintLowUtilization, GPUs: []int{0}, From: sec(0), To: sec(720)}},
			Reading: "small batches (1-4) leave the 7g.80gb slice under-occupied (GRACT 0.38-0.56)"}},
		{File: "alphazero_mcts_selfplay_gpu_monitor.log", Case: Case{
			Labels:  []Label{{ID: timeline.HintLowUtilization, From: 0, To: end}},
			Why:     "a fixed-width table printed by the job's own monitor script: no importer reads it",
			Reading: "GPU starved by CPU-side tree search: util ~3.6%, work not on the GPU"}},
		{File: "dqn_spaceinvaders_wandb-events.jsonl", Case: Case{
			Labels:  []Label{{ID: timeline.HintInputBound, From: 0, To: end}},
			Why:     "W&B's system-metrics JSON lines: no importer reads them",
			Reading: "RL with environment stepping on the CPU: GPU 4-7% while 2 vCPUs run at 65-71%"}},
		{File: "h100pcie_350w_fp16_maxpower.csv", Case: Case{
			Labels:  []Label{{ID: timeline.HintPowerCapped, GPUs: []int{0}, From: sec(2), To: end}},
			Reading: "power-capped: ~348W at the 350W cap with the SM clock pulled from 1755 to ~825MHz"}},
		{File: "h100pcie_350w_fp16_allzero.csv", Case: Case{Healthy: true,
			Reading: "healthy control: the same GEMM on zeros, ~280W, SM clock >= 1400MHz throughout: no throttling"}},
		{File: "v100_lstm_dcgmi.csv", Interval: 50 * time.Millisecond, Case: Case{
			Labels:  []Label{{ID: timeline.HintLowUtilization, GPUs: []int{0}, From: 0, To: end}},
			Reading: "high utilisation, almost no SM work (GPUTL ~54%, SMACT ~0.008): a tiny LSTM, launch-bound"}},
		{File: "h100nvl_mig_sd_dcgmi.csv", Interval: 50 * time.Millisecond, Case: Case{Healthy: true,
			Why: "SM activity is device-wide and the log does not say which slice the job ran on: 34% of the device " +
				"reads as light work",
			Reading: "a MIG slice mostly busy (SMACT 0.41 device-wide on a 4g slice); device counters N/A: nothing wrong to report"}},
		{File: "a100_lstm_dcgmi.csv", Case: Case{
			Labels:  []Label{{ID: timeline.HintGPUIdle, GPUs: []int{0}, From: 0, To: sec(1440)}},
			May:     []string{timeline.HintIdleMemoryHeld},
			Reading: "GPU idle for almost the whole job (util 0 in 99.5% of rows) with a 0.45-1.17GiB context"}},
		{File: "openad_2xa6000.csv", Case: Case{
			Labels:  []Label{{ID: timeline.HintGPUImbalance, GPUs: []int{1}, From: 0, To: end}},
			Reading: "one GPU busy (~91%), the other unused for the whole run"}},
		{File: "plato_20gb_headerless.csv",
			Columns: "timestamp,utilization.gpu,utilization.memory,memory.used,memory.free,temperature.gpu,power.draw",
			Case: Case{
				Labels: []Label{
					{ID: timeline.HintGPUIdle, GPUs: []int{0}, From: 0, To: end},
					{ID: timeline.HintIdleMemoryHeld, GPUs: []int{0}, From: 0, To: end}},
				May: []string{timeline.HintLowUtilization},
				Reading: "mostly idle between federated-learning rounds; 1GiB or more held in 25% of rows, 78% of them at 0% util, " +
					"the whole 20GB pinned at 0% util for 3 min (a stuck process)"}},
		{File: "metamotion_v100s.csv", Case: Case{
			Labels:  []Label{{ID: timeline.HintLowUtilization, GPUs: []int{0}, From: 0, To: end}},
			May:     []string{timeline.HintMemoryHeadroom},
			Reading: "host/input-bound training: util ~26% for an hour, 472MiB of 32GiB (no host data to show the host)"}},
		{File: "regad_4xv100.csv", Case: Case{
			Labels: []Label{
				{ID: timeline.HintGPUImbalance, GPUs: []int{1, 2}, From: 0, To: end},
				{ID: timeline.HintLowUtilization, GPUs: []int{0, 3}, From: 0, To: end}},
			Why: "without utilisation or SM activity the GPUs with boost clocks count as working, how hard unknown, " +
				"so GPU0 and GPU3's light work is not low-utilization",
			Reading: "two of four GPUs unused (135MHz, 42W); the other two barely work (<=75W of ~300W but for single-sample spikes)"}},
	}
	for i := range logs {
		logs[i].Case.Name = "real/" + logs[i].File
		logs[i].Case.Part = Real
		logs[i].Case.Family = logs[i].File
		logs[i].Case.Shape = logs[i].File
	}
	return logs
}

// DemoRun is a demo scenario with what it must and may raise.
type DemoRun struct {
	Scenario string
	Case     Case
}

// DemoLength is how long each demo plays, on simulated time.
const DemoLength = 10 * time.Minute

// Demos is every demo scenario, labelled by what it plays.
func Demos() []DemoRun {
	eight := []int{0, 1, 2, 3, 4, 5, 6, 7}
	whole := func(id string, gpus ...int) Label { return Label{ID: id, GPUs: gpus, From: 0, To: DemoLength} }
	demos := []DemoRun{
		{"training", Case{Healthy: true, May: []string{timeline.HintMemoryHeadroom},
			Reading: "healthy training with a validation phase every few minutes"}},
		{"input-bound", Case{Labels: []Label{whole(timeline.HintInputBound, eight...)},
			Reading: "GPU sawtooth while 24 loader workers keep the host busy"}},
		{"imbalance", Case{Labels: []Label{whole(timeline.HintGPUImbalance, 0, 2, 3, 4, 5, 6, 7)},
			May:     []string{timeline.HintLowUtilization, timeline.HintMemoryHeadroom},
			Reading: "GPU1 does all the work, lightly (SM ~28%, 5GiB of 80), the seven others idle"}},
		{"cpu-fallback", Case{Labels: []Label{whole(timeline.HintIdleMemoryHeld, 0)}, May: []string{timeline.HintGPUIdle},
			Reading: "memory allocated, SM near 0, the job's CPU at 100%; GPUs 1-7 unused"}},
		{"throttle", Case{Labels: []Label{whole(timeline.HintPowerCapped), whole(timeline.HintThermalThrottle)},
			Reading: "power cap on the GPUs, two of them hot"}},
		{"checkpoint", Case{Labels: []Label{whole(timeline.HintPeriodicStall, eight...)}, May: []string{timeline.HintBusyWait},
			Reading: "rank 0 checkpoints every 2 min for ~40s while GPUs 1-7 spin in a collective"}},
		{"mig", Case{Labels: []Label{whole(timeline.HintInputBound, 10), whole(timeline.HintGPUImbalance, 10),
			whole(timeline.HintLowUtilization, 9)},
			Reading: "an A100 in MIG slices: the 1g.10gb slice holds 9GiB and barely computes, the 2g.20gb runs at half"}},
		// Seed 1 picks the GPUs: GPU6's PCIe link at x8, GPU7's NVLink 16
		// failing from 0:40.
		{"faults", Case{Labels: []Label{whole(timeline.HintGPUError), whole(timeline.HintLinkDegraded, 6),
			{ID: timeline.HintLinkDegraded, GPUs: []int{7}, From: 40 * time.Second, To: DemoLength}},
			Reading: "an Xid 48, then the GPU off the bus; another's PCIe link at x8 of x16; a third's NVLink link counting CRC errors, then down"}},
		{"allocated", Case{Labels: []Label{whole(timeline.HintAllocatedIdle, 6, 7)},
			Reading: "every GPU allocated, to two pods and two Slurm jobs; a notebook pod's GPU6 and a job's GPU7 never used"}},
	}
	for i := range demos {
		demos[i].Case.Name = "demo/" + demos[i].Scenario
		demos[i].Case.Part = Demo
		demos[i].Case.Family = demos[i].Scenario
		demos[i].Case.Shape = "gputop record --demo=" + demos[i].Scenario + " --fast, 10 min at 1s"
	}
	return demos
}
