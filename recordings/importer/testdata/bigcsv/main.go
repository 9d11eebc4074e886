// Command bigcsv writes a large nvidia-smi --query-gpu CSV to stdout, for
// measuring an import's memory and time (docs/performance.md): 8 GPUs
// sampled every second, with the columns and units nvidia-smi writes, the
// values a busy node jitters through. The same -lines give the same bytes.
//
//	go run ./recordings/importer/testdata/bigcsv -lines 1000000 > /tmp/big.csv
//	/usr/bin/time -v gputop import /tmp/big.csv -o /tmp/big.gtr
package main

import (
	"bufio"
	"flag"
	"fmt"
	"math/rand/v2"
	"os"
	"time"
)

func main() {
	lines := flag.Int("lines", 1_000_000, "data lines to write (8 per sampling pass)")
	flag.Parse()
	w := bufio.NewWriterSize(os.Stdout, 1<<20)
	defer w.Flush()
	fmt.Fprintln(w, "timestamp, index, name, uuid, utilization.gpu [%], utilization.memory [%], memory.used [MiB], memory.total [MiB], power.draw [W], power.limit [W], temperature.gpu, clocks.sm [MHz], clocks.mem [MHz]")
	rng := rand.New(rand.NewPCG(1, 2))
	start := time.Date(2026, 11, 24, 8, 0, 0, 0, time.UTC)
	const gpus = 8
	for i := range *lines {
		pass, gpu := i/gpus, i%gpus
		at := start.Add(time.Duration(pass)*time.Second + time.Duration(gpu*3+rng.IntN(3))*time.Millisecond)
		busy := (pass/600)%5 != 4 // ten minutes in five idle
		util, mem, power, clock := 0, 0, 70+rng.Float64()*5, 345
		if busy {
			util, mem, power, clock = 95+rng.IntN(6), 40+rng.IntN(20), 600+rng.Float64()*100, 1980
		}
		fmt.Fprintf(w, "%s, %d, NVIDIA H100 80GB HBM3, GPU-%08x-1111-2222-3333-444455556666, %d %%, %d %%, %d MiB, 81559 MiB, %.2f W, 700.00 W, %d, %d MHz, 2619 MHz\n",
			at.Format("2006/01/02 15:04:05.000"), gpu, gpu, util, mem, 40000+rng.IntN(2000), power, 40+rng.IntN(30), clock)
	}
}
