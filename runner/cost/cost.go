// Package cost prices what a gateway used (docs/method.md, "Cost"): its CPU
// cores and its peak memory over a window, at the HCL cost block's prices.
package cost

import "github.com/gatewaybench/gatewaybench/runner/config"

// Hourly is what the resources cost per hour, in USD.
func Hourly(p config.Cost, cores, peakGB float64) float64 {
	return cores*p.USDPerVCPUHour + peakGB*p.USDPerGBHour
}

// InstanceHourly is the provisioned instance's list price per hour.
func InstanceHourly(p config.Cost) float64 {
	return Hourly(p, p.InstanceVCPUs, p.InstanceMemoryGB)
}

// Instance is USD per 1M requests served at rps by the cost block's
// provisioned instance, held whole whatever the gateway uses of it; ok is
// false without an instance or requests.
func Instance(p config.Cost, rps float64) (usdPer1M float64, ok bool) {
	h := InstanceHourly(p)
	if rps <= 0 || h <= 0 {
		return 0, false
	}
	return h / (rps * 3600) * 1e6, true
}

// PerMillion is USD per 1M requests served at rps with those resources,
// and requests per second per USD-hour; ok is false when either is
// undefined (no requests, or nothing priced).
func PerMillion(p config.Cost, cores, peakGB, rps float64) (usdPer1M, rpsPerUSDHour float64, ok bool) {
	h := Hourly(p, cores, peakGB)
	if rps <= 0 || h <= 0 {
		return 0, 0, false
	}
	return h / (rps * 3600) * 1e6, rps / h, true
}
