package main

import (
	"fmt"
	"math"
	"strconv"

	"github.com/spf13/pflag"

	"github.com/gputop-dev/gputop/timeline/report"
)

// prices are the --price-kwh and --price-gpu-hour flags of report and
// run: what a kWh and an hour of one GPU cost, in the user's currency.
type prices struct{ kwh, gpuHour priceFlag }

func (p *prices) register(fs *pflag.FlagSet) {
	fs.Var(&p.kwh, "price-kwh", "the cost of a kWh, `PRICE` in your currency (0.30): the report says what the energy cost")
	fs.Var(&p.gpuHour, "price-gpu-hour", "the cost of one GPU for an hour, `PRICE` (2.50): the report says what the GPU time cost")
}

// apply puts the prices into the report's options.
func (p *prices) apply(opts *report.ReportOptions) {
	opts.PriceKWh, opts.PriceGPUHour = float64(p.kwh), float64(p.gpuHour)
}

// priceFlag is a price: a finite number, not negative. Unset is NaN.
type priceFlag float64

func (f *priceFlag) String() string {
	if f == nil || math.IsNaN(float64(*f)) || *f == 0 {
		return ""
	}
	return strconv.FormatFloat(float64(*f), 'g', -1, 64)
}

func (f *priceFlag) Type() string { return "price" }

func (f *priceFlag) Set(s string) error {
	v, err := strconv.ParseFloat(s, 64)
	if err != nil || math.IsNaN(v) || math.IsInf(v, 0) || v < 0 || v > 1e9 {
		return fmt.Errorf("%q is not a price: give a number such as 0.30", s)
	}
	*f = priceFlag(v)
	return nil
}
