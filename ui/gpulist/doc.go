// Package gpulist is the GPU list's own state: which GPU is selected for
// the detail graph and the first one on screen of a list longer than its
// rows, as htop scrolls its processes; and, in a session of several hosts,
// the hosts (which GPUs and cores each has), which is selected, and how
// the list is arranged for the terminal (Mode: a tree, a list of hosts,
// one host opened) with the layout that arrangement takes.
//
// Its keys are ui's (listActions), which move the selection by Select;
// ui draws the rows from the store and keeps the selection in view after
// every message (KeepInView). It reads the session's description and the
// layout, never the store or the clock.
package gpulist
