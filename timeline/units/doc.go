// Package units writes quantities the way gputop shows them everywhere: on
// the screen, in reports, in hints' evidence and in messages, so that the
// same quantity always reads the same. One style for each:
//
//	GPUs        GPU3, GPU0-3,5, host; by host where a session has several:
//	            node3 GPU2, node3 GPU0-7, node5 GPU1 (GPUNames)
//	durations   250ms, 4.5s, 45s, 9m30s, 13m, 2h54m, 3d04h
//	offsets     0:01:05, 26:00:00 since a start (Clock)
//	percentages 97%, 0.5%; shares <1%, 42%, >99%
//	bytes       512MiB, 65.6GiB, 1.95TiB (binary: what nvidia-smi's MiB are)
//	rates       1.20GB/s, 500MB/s (decimal, as bandwidth is quoted)
//	power       630W, 630/700W; energy 754J, 1.2kJ, 3.50MJ
//	temperature 65°C (65C without Unicode); clocks 1980MHz
//	counts      1 sample, 3 samples
//
// A number and its unit are written together, with no space, as top-like
// tools do. An unknown value (NaN) is NA, never 0. It imports only the
// standard library.
package units
