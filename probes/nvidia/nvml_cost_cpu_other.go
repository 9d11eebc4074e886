//go:build !linux

package nvidia

// threadCPUSum is unknown here: nvml-bench leaves its CPU column out.
type threadCPUSum struct{}

func (c *threadCPUSum) start()                 {}
func (c *threadCPUSum) stop()                  {}
func (c *threadCPUSum) perCallUS(int) *float64 { return nil }
