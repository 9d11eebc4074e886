package nvidia

import (
	"errors"
	"fmt"

	"github.com/NVIDIA/go-nvml/pkg/nvml"
)

// ErrGPULost is the error of a GPU that fell off the bus (NVML's
// ERROR_GPU_IS_LOST, or ERROR_GPU_NOT_FOUND from a device call). Its probe
// returns Reading{Lost: true} with it, and never calls that device again.
var ErrGPULost = errors.New("GPU is lost")

// errNVMLClosed is returned by a probe collected after NVML.Close.
var errNVMLClosed = errors.New("NVML is closed")

// InitError is the error of an OpenNVML whose nvmlInit failed. Its text is
// one line for the user; Return tells main which case it was.
type InitError struct {
	Return nvml.Return
}

// Error says which library or error, in one line.
func (e *InitError) Error() string {
	if e.Return == nvml.ERROR_LIBRARY_NOT_FOUND {
		return "NVML: libnvidia-ml.so.1 not found (ERROR_LIBRARY_NOT_FOUND)"
	}
	return "NVML: nvmlInit failed: " + returnText(e.Return)
}

// returnText describes an NVML return code with the words nvmlErrorString
// uses. It never calls into the library: Return.Error() calls the real
// nvmlErrorString as soon as libnvidia-ml.so.1 has been opened, also when
// nvmlInit then failed, and after a failed Init the library must not be
// touched again (see nvml.go).
func returnText(r nvml.Return) string {
	if s, ok := returnTexts[r]; ok {
		return s
	}
	return fmt.Sprintf("NVML error %d", int32(r))
}

var returnTexts = map[nvml.Return]string{
	nvml.SUCCESS:                         "Success",
	nvml.ERROR_UNINITIALIZED:             "Uninitialized",
	nvml.ERROR_INVALID_ARGUMENT:          "Invalid Argument",
	nvml.ERROR_NOT_SUPPORTED:             "Not Supported",
	nvml.ERROR_NO_PERMISSION:             "Insufficient Permissions",
	nvml.ERROR_ALREADY_INITIALIZED:       "Already Initialized",
	nvml.ERROR_NOT_FOUND:                 "Not Found",
	nvml.ERROR_INSUFFICIENT_SIZE:         "Insufficient Size",
	nvml.ERROR_INSUFFICIENT_POWER:        "Insufficient External Power",
	nvml.ERROR_DRIVER_NOT_LOADED:         "Driver Not Loaded",
	nvml.ERROR_TIMEOUT:                   "Timeout",
	nvml.ERROR_IRQ_ISSUE:                 "Interrupt request issue",
	nvml.ERROR_LIBRARY_NOT_FOUND:         "NVML Shared Library Not Found",
	nvml.ERROR_FUNCTION_NOT_FOUND:        "Function Not Found",
	nvml.ERROR_CORRUPTED_INFOROM:         "Corrupted infoROM",
	nvml.ERROR_GPU_IS_LOST:               "GPU is lost",
	nvml.ERROR_RESET_REQUIRED:            "GPU requires reset",
	nvml.ERROR_OPERATING_SYSTEM:          "GPU access blocked by the operating system",
	nvml.ERROR_LIB_RM_VERSION_MISMATCH:   "Driver/library version mismatch",
	nvml.ERROR_IN_USE:                    "In use by another client",
	nvml.ERROR_MEMORY:                    "Insufficient Memory",
	nvml.ERROR_NO_DATA:                   "No data",
	nvml.ERROR_INSUFFICIENT_RESOURCES:    "Insufficient resources",
	nvml.ERROR_ARGUMENT_VERSION_MISMATCH: "Argument version mismatch",
	nvml.ERROR_DEPRECATED:                "Deprecated",
	nvml.ERROR_NOT_READY:                 "System not ready",
	nvml.ERROR_GPU_NOT_FOUND:             "No GPUs were found",
	nvml.ERROR_UNKNOWN:                   "Unknown Error",
}

// outcome is what a probe does with the return of one NVML call.
type outcome uint8

const (
	outcomeOK outcome = iota
	// outcomeUnsupported: the device or driver will never answer this call,
	// so it is not asked again (NaN from now on).
	outcomeUnsupported
	// outcomeLost: the GPU is gone; nothing is asked of it again.
	outcomeLost
	// outcomeFailed: this tick's value is unknown; the call is tried again
	// next tick (a timeout or an unknown error can pass).
	outcomeFailed
)

// classify sorts an NVML return.
//
// ERROR_GPU_NOT_FOUND counts as lost: from a call on a device handle that
// enumerated fine, "no GPU found" means the GPU has gone, and a handle is
// never re-enumerated while NVML stays initialised.
// ERROR_FUNCTION_NOT_FOUND counts as unsupported: the driver lacks it, and
// asking again will not change that.
func classify(r nvml.Return) outcome {
	switch r {
	case nvml.SUCCESS:
		return outcomeOK
	case nvml.ERROR_NOT_SUPPORTED, nvml.ERROR_FUNCTION_NOT_FOUND:
		return outcomeUnsupported
	case nvml.ERROR_GPU_IS_LOST, nvml.ERROR_GPU_NOT_FOUND:
		return outcomeLost
	default:
		return outcomeFailed
	}
}
