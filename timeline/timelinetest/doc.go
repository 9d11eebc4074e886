// Package timelinetest helps the tests of the packages built on timeline:
// metrics written briefly, a fixed start time, a day of samples for
// benchmarks, and the real logs in ../shared/telemetry. Only tests import
// it.
package timelinetest
