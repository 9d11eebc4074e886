// Package reporttest holds the samples the report's tests and its writers'
// tests share: five minutes of a checkpointing job on eight H100s, an
// nvidia-smi log, a GPU with something to say of its health, and the
// Engine fed them. It returns samples, stores and Engines, never a Report,
// so timeline/report's own tests can import it. Only tests import it.
package reporttest
