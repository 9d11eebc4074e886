package owners

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"sync"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/status"
	podresources "k8s.io/kubelet/pkg/apis/podresources/v1"

	"github.com/gputop-dev/gputop/timeline"
)

// maxAnswer bounds the kubelet's answer: 110 pods (the kubelet's default
// limit) of a few containers with eight devices each is some tens of KB.
const maxAnswer = 4 << 20

// kubelet reads the kubelet's pod-resources API, as dcgm-exporter does:
// List, on its unix socket, every pod's containers and the devices each
// was given, GPUs by UUID. One connection, kept while the kubelet answers.
type kubelet struct {
	source
	socket string
	// mu guards conn: Close comes from the session's goroutine while a
	// Collect may still run in the sampler's (Sampler.Close waits for none).
	mu   sync.Mutex
	conn *grpc.ClientConn
}

// client is the connection to the kubelet, made on first use.
func (k *kubelet) client() (*grpc.ClientConn, error) {
	k.mu.Lock()
	defer k.mu.Unlock()
	if k.conn == nil {
		conn, err := grpc.NewClient("unix://"+k.socket,
			grpc.WithTransportCredentials(insecure.NewCredentials()),
			grpc.WithDefaultCallOptions(grpc.MaxCallRecvMsgSize(maxAnswer)))
		if err != nil {
			return nil, err
		}
		k.conn = conn
	}
	return k.conn, nil
}

// look says whether the socket is there.
func (k *kubelet) look(now time.Time) bool {
	if _, err := os.Stat(k.socket); err != nil {
		why := "not found"
		if !errors.Is(err, os.ErrNotExist) {
			why = err.Error()
		}
		k.gone(now, why)
		return false
	}
	k.present = true
	return true
}

// check is the source's line in Checks.
func (k *kubelet) check() string {
	if k.present {
		return "kubelet pod-resources: " + k.socket + ": found"
	}
	return fmt.Sprintf("kubelet pod-resources: %s: %s; looked for again every minute", k.socket, k.why)
}

// list asks the kubelet which containers hold which GPUs. A socket gone or
// refusing (no kubelet, or not root) marks the source missing, no error.
func (k *kubelet) list(ctx context.Context, now time.Time, gpus []timeline.GPUInfo) ([]timeline.Owner, error) {
	if !k.present && !k.look(now) {
		return nil, nil
	}
	conn, err := k.client()
	if err != nil {
		k.gone(now, err.Error())
		return nil, nil
	}
	resp, err := podresources.NewPodResourcesListerClient(conn).List(ctx, &podresources.ListPodResourcesRequest{})
	if err != nil {
		if status.Code(err) == codes.Unavailable {
			// Refused, gone, or not ours to open: as if absent.
			_ = k.close() // a connection that failed has nothing to flush
			k.gone(now, "refused: "+status.Convert(err).Message())
			return nil, nil
		}
		return nil, fmt.Errorf("kubelet pod-resources: %s", timeline.CleanText(status.Convert(err).Message()))
	}
	return podOwners(resp, gpus), nil
}

func (k *kubelet) close() error {
	k.mu.Lock()
	defer k.mu.Unlock()
	if k.conn == nil {
		return nil
	}
	err := k.conn.Close()
	k.conn = nil
	return err
}

// podOwners maps each GPU the answer names to its pod, namespace and
// container. Devices of other resources (CPUs, NICs, other vendors) and
// GPUs not in the session are passed over.
func podOwners(resp *podresources.ListPodResourcesResponse, gpus []timeline.GPUInfo) []timeline.Owner {
	var out []timeline.Owner
	seen := map[timeline.Owner]bool{}
	for _, pod := range resp.GetPodResources() {
		for _, c := range pod.GetContainers() {
			for _, d := range c.GetDevices() {
				if !strings.HasPrefix(d.GetResourceName(), "nvidia.com/") {
					continue
				}
				for _, id := range d.GetDeviceIds() {
					g, ok := deviceGPU(gpus, id)
					if !ok {
						continue
					}
					o := timeline.Owner{GPU: g.Index, Pod: clean(pod.GetName()), Namespace: clean(pod.GetNamespace()),
						Container: clean(c.GetName())}
					if o.Pod == "" || seen[o] || len(out) >= maxOwnersPerGPU*max(len(gpus), 1) {
						continue
					}
					seen[o] = true
					out = append(out, o)
				}
			}
		}
	}
	return out
}

// deviceGPU reads a device id as NVIDIA's device plugin writes it:
// "GPU-<uuid>" (its default), "MIG-<uuid>" (a MIG device, newer drivers),
// "MIG-GPU-<uuid>/<gi>/<ci>" (a MIG device, older ones), a bare NVML index
// (--device-id-strategy=index), any of them with "::<n>" after it, the
// replica of a time-sliced GPU. A MIG device by index ("0:1") names the
// instance by an order gputop does not keep, and is passed over.
func deviceGPU(gpus []timeline.GPUInfo, id string) (timeline.GPUInfo, bool) {
	if i := strings.Index(id, "::"); i >= 0 {
		id = id[:i]
	}
	if rest, ok := strings.CutPrefix(id, "MIG-GPU-"); ok {
		parts := strings.Split(rest, "/")
		if len(parts) != 3 {
			return timeline.GPUInfo{}, false
		}
		gi, ok1 := atoi(parts[1])
		ci, ok2 := atoi(parts[2])
		if !ok1 || !ok2 {
			return timeline.GPUInfo{}, false
		}
		return byMIG(gpus, "GPU-"+parts[0], gi, ci)
	}
	if strings.HasPrefix(id, "GPU-") || strings.HasPrefix(id, "MIG-") {
		return byUUID(gpus, id)
	}
	if i, ok := atoi(id); ok {
		return byIndex(gpus, i)
	}
	return timeline.GPUInfo{}, false
}
