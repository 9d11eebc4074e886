package help

// Terms say what every number, abbreviation and mark on the screen
// means, in the order a screen shows them, top to bottom: the help lists
// them all (ui's TestEveryAbbreviationIsInTheHelp). ASCII is how --ascii
// writes the term, where it differs.
var Terms = []struct{ Term, ASCII, Means string }{
	{"● LIVE, ⏸, ▶ 2x", "* LIVE, ||, > 2x", "following live, paused, a replay playing at 2x; REC: recording to a file"},
	{"[30s], [all 1h]", "", "the window of time on screen: its span, or all of the session (+ and - zoom)"},
	{"▸", ">", "the selected GPU, host or process"},
	{"util", "", "share of time at least one kernel ran (NVML, coarse): a kernel on a fifth of the SMs reads 100 %. The mean of every sub-second sample."},
	{"(90-100%)", "", "the lowest and highest of NVML's sub-second utilization samples behind the mean: a short dip or spike shows here"},
	{"SM", "", "SM activity: share of SMs busy (GPM, Hopper and newer; profiling-grade). Trust it over util."},
	{"tensor", "", "share of time the tensor cores worked (GPM)"},
	{"dram", "", "DRAM bandwidth used, in % of the GPU's peak (GPM)"},
	{"occ", "", "SM occupancy: resident warps in % of what the SMs hold (GPM)"},
	{"pwr, W", "", "power draw (the driver's one-second average) of its enforced limit (630/700W). High util at low power means kernels are resident but waiting (a collective, a spin)."},
	{"mem, GiB", "", "GPU memory used of total (65.6/80.0GiB), and its % in a mem row"},
	{"°C, MHz", "C, MHz", "GPU temperature; SM clock"},
	{"PWR", "!PWR", "clocks held back right now by the power cap"},
	{"HOT", "!HOT", "clocks held back right now by heat (thermal slowdown)"},
	{"LIM", "!LIM", "clocks held back by the board's limit or for reliability"},
	{"SYN", "!SYN", "clocks held to the slowest GPU's by sync boost"},
	{"PCIe in, out", "", "host to device and device to host traffic over PCIe"},
	{"clocks held", "", "under the detail graph: the share of time each reason held the clocks back (NVML's violation counters)"},
	{"NVLink", "", "one bar per link, its traffic; x: a link that is down"},
	{"MIG 3g.40gb", "", "a MIG slice of a GPU: its compute profile (3 of 7 GPCs) and memory; listed after its parent"},
	{"LOST", "", "the GPU fell off the bus (Xid 79) or stopped answering NVML"},
	{"N/A", "", "the GPU or driver does not report it, or did not this second. gputop never shows an unknown as 0."},
	{"phase", "", "what the job did in each column: busy, stalled (GPUs low while the host works), idle; colour says which (= busy, ~ stalled, . idle without colour or with --ascii), markers are ticks with their text"},
	{"┃", "|", "a marker on the phase band (m, gputop mark, a job's phase line)"},
	{"hints", "", "the band under the phase band: when each hint held, worst on top"},
	{"host, cpu", "", "the host's CPU busy, all cores"},
	{"iow, iowait", "", "share of CPU time waiting on storage"},
	{"ld, load", "", "load average over one minute"},
	{"RAM, ram", "", "host memory used of total"},
	{"sw, swap", "", "swap used"},
	{"disk r, w", "", "disk read and write rates"},
	{"cpus", "", "a bar per core (the busiest of a group where there are more cores than columns): one pegged core among idle ones is a single-threaded loader; 95%+: cores at 95 % or more"},
	{"INFO, WARNING, CRITICAL", "", "how bad a hint is; so far 25s: a first reading that may firm up or go; ended 40s ago: no longer holds (dimmed)"},
	{"7/8 busy", "", "several hosts: how many of a host's GPUs work (SM activity, else util, over the idle threshold)"},
	{"mean, lo", "", "several hosts: the mean and lowest utilization of a host's GPUs; kW its GPUs' power; without data: hosts not answering"},
	{"GPU MEM", "", "processes: GPU memory the process holds"},
	{"UTIL", "", "processes: NVML's per-process utilization, the share of time one of its kernels ran; as coarse as util, not SM activity"},
	{"CPU, RSS", "", "processes: CPU in % of one core; resident host memory"},
	{"START, END", "", "processes: when it started (as the host says), and when it let go of its GPU or exited (dimmed)"},
	{"WHERE", "", "processes: what the process belongs to, from its cgroup: pod (a Kubernetes pod's UID), ctr (a container's id), job (a Slurm job.step), session; - for none"},
	{"ALLOCATIONS", "", "who a scheduler allocated each GPU to: a Kubernetes pod (namespace/name, container) or a Slurm job (user, partition), also under each GPU's name; idle, no process: nothing runs on its GPUs"},
}

// helpTermColumn is where a term's meaning begins.
const helpTermColumn = 16
