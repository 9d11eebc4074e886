// Package alloc is the allocations panel: who a scheduler allocated each
// GPU to (a Kubernetes pod's container, a Slurm job), as the last
// ownership reading at the cursor said, one row an owner with its GPUs,
// or, where the screen gives it fewer rows, the owners packed into them.
// An owner with no process on its GPUs is what the panel is for (issue
// 46): NVML shows such a GPU as merely idle.
//
// It is a panel added the way docs/architecture.md's "Adding a panel"
// says: a package and its test, drawn from plain data (Of: the owners,
// how the session names its GPUs, which GPUs have a process) with a
// draw.Pen in the rows it is given, keeping nothing; no keys of its own.
// Short and Long are an owner's words for the other surfaces (the GPU
// list, the detail title, a host's line). It imports the vocabulary and
// ui/draw, never the store.
package alloc
