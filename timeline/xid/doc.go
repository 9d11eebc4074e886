// Package xid is the catalogue of the Xid errors a training node meets
// most (the driver's reports of GPU errors) and the text of the markers
// they become: written by the NVML probe as events arrive, read back by the
// analysis, the report and the screen. It imports only the standard
// library.
package xid
