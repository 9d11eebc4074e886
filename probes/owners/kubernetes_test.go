package owners

import (
	"context"
	"net"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	podresources "k8s.io/kubelet/pkg/apis/podresources/v1"

	"github.com/gputop-dev/gputop/timeline"
)

// testGPUs is a node of two H100s and an A100 in MIG mode with two
// instances: what a session's Info lists.
var testGPUs = []timeline.GPUInfo{
	{Index: 0, UUID: "GPU-aaaaaaaa-0000-0000-0000-000000000000"},
	{Index: 1, UUID: "GPU-bbbbbbbb-1111-1111-1111-111111111111"},
	{Index: 2, UUID: "GPU-cccccccc-2222-2222-2222-222222222222", MIG: true},
	{Index: 3, UUID: "MIG-dddddddd-3333-3333-3333-333333333333", MIGProfile: "3g.40gb", MIGParent: 2, MIGGPUInstance: 1, MIGComputeInstance: 0},
	{Index: 4, UUID: "MIG-eeeeeeee-4444-4444-4444-444444444444", MIGProfile: "3g.40gb", MIGParent: 2, MIGGPUInstance: 2, MIGComputeInstance: 0},
}

// kubeletServer is the kubelet's pod-resources service, answering List
// with what the test sets, on a unix socket, as the kubelet serves it.
type kubeletServer struct {
	podresources.UnimplementedPodResourcesListerServer
	mu    sync.Mutex
	resp  *podresources.ListPodResourcesResponse
	err   error
	calls int
	// hold, where set, is told of each call and makes it wait for its
	// release: a kubelet slow to answer.
	hold, release chan struct{}
}

func (s *kubeletServer) List(ctx context.Context, _ *podresources.ListPodResourcesRequest) (*podresources.ListPodResourcesResponse, error) {
	s.mu.Lock()
	s.calls++
	resp, err, hold, release := s.resp, s.err, s.hold, s.release
	s.mu.Unlock()
	if hold != nil {
		hold <- struct{}{}
		select {
		case <-release:
		case <-ctx.Done():
		}
	}
	return resp, err
}

func (s *kubeletServer) set(resp *podresources.ListPodResourcesResponse, err error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.resp, s.err = resp, err
}

func (s *kubeletServer) called() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.calls
}

// serve starts the service on socket until the test ends.
func serve(t *testing.T, socket string, srv *kubeletServer) {
	t.Helper()
	lis, err := net.Listen("unix", socket)
	if err != nil {
		t.Fatal(err)
	}
	g := grpc.NewServer()
	podresources.RegisterPodResourcesListerServer(g, srv)
	go g.Serve(lis)
	t.Cleanup(g.Stop)
}

// socketPath is a socket in a fresh directory, short enough for a unix
// socket's 108 bytes.
func socketPath(t *testing.T) string {
	dir, err := os.MkdirTemp("", "owners")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	return filepath.Join(dir, "kubelet.sock")
}

func pod(ns, name string, containers ...*podresources.ContainerResources) *podresources.PodResources {
	return &podresources.PodResources{Name: name, Namespace: ns, Containers: containers}
}

func container(name, resource string, ids ...string) *podresources.ContainerResources {
	return &podresources.ContainerResources{Name: name,
		Devices: []*podresources.ContainerDevices{{ResourceName: resource, DeviceIds: ids}}}
}

// fakeClock is the probe's clock, moved by the test.
type fakeClock struct{ t time.Time }

func (c *fakeClock) now() time.Time { return c.t }

// noSlurm points the Slurm side at an empty directory.
func noSlurm(t *testing.T, cfg Config) Config {
	cfg.CgroupRoot, cfg.ProcRoot, cfg.JobMapDirs = t.TempDir(), t.TempDir(), []string{}
	return cfg
}

func collect(t *testing.T, p *Probe) []timeline.Owner {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	r, err := p.Collect(ctx)
	if err != nil {
		t.Fatalf("Collect: %v", err)
	}
	return r.Owners
}

func TestKubeletNamesEachGPUsPodByUUIDMIGIncluded(t *testing.T) {
	socket := socketPath(t)
	srv := &kubeletServer{}
	srv.set(&podresources.ListPodResourcesResponse{PodResources: []*podresources.PodResources{
		pod("team-a", "train-0", container("trainer", "nvidia.com/gpu", "GPU-aaaaaaaa-0000-0000-0000-000000000000"),
			container("sidecar", "example.com/nic", "GPU-bbbbbbbb-1111-1111-1111-111111111111")),
		pod("team-b", "notebook", container("jupyter", "nvidia.com/mig-3g.40gb", "MIG-dddddddd-3333-3333-3333-333333333333")),
		// An older device plugin's MIG id, and a GPU of another node.
		pod("team-b", "infer", container("server", "nvidia.com/mig-3g.40gb", "MIG-GPU-cccccccc-2222-2222-2222-222222222222/2/0",
			"GPU-ffffffff-9999-9999-9999-999999999999")),
		pod("default", "cpu-only", &podresources.ContainerResources{Name: "app"}),
	}}, nil)
	serve(t, socket, srv)

	p := New(noSlurm(t, Config{GPUs: testGPUs, KubeletSocket: socket}))
	defer p.Close()
	got := collect(t, p)
	want := []timeline.Owner{
		{GPU: 0, Pod: "train-0", Namespace: "team-a", Container: "trainer"},
		{GPU: 3, Pod: "notebook", Namespace: "team-b", Container: "jupyter"},
		{GPU: 4, Pod: "infer", Namespace: "team-b", Container: "server"},
	}
	if !slices.Equal(got, want) {
		t.Errorf("owners:\n got %+v\nwant %+v", got, want)
	}
	if !strings.Contains(p.Checks()[0], "found") {
		t.Errorf("check line %q: the socket was there", p.Checks()[0])
	}

	// The pod ends: the next read says so.
	srv.set(&podresources.ListPodResourcesResponse{}, nil)
	if got := collect(t, p); len(got) != 0 {
		t.Errorf("after the pods ended: %+v", got)
	}
}

func TestKubeletDeviceIDsByIndexAndTimeSlicedReplicas(t *testing.T) {
	socket := socketPath(t)
	srv := &kubeletServer{}
	srv.set(&podresources.ListPodResourcesResponse{PodResources: []*podresources.PodResources{
		pod("ml", "a", container("c", "nvidia.com/gpu", "1")),
		pod("ml", "b", container("c", "nvidia.com/gpu", "GPU-aaaaaaaa-0000-0000-0000-000000000000::0")),
		pod("ml", "c", container("c", "nvidia.com/gpu", "GPU-aaaaaaaa-0000-0000-0000-000000000000::1")),
		pod("ml", "d", container("c", "nvidia.com/gpu", "2:0")), // a MIG device by index: no order to read it by
	}}, nil)
	serve(t, socket, srv)
	p := New(noSlurm(t, Config{GPUs: testGPUs, KubeletSocket: socket}))
	defer p.Close()
	got := collect(t, p)
	want := []timeline.Owner{
		{GPU: 1, Pod: "a", Namespace: "ml", Container: "c"},
		{GPU: 0, Pod: "b", Namespace: "ml", Container: "c"},
		{GPU: 0, Pod: "c", Namespace: "ml", Container: "c"},
	}
	if !slices.Equal(got, want) {
		t.Errorf("owners:\n got %+v\nwant %+v", got, want)
	}
}

func TestMissingKubeletSocketIsALineNotAnErrorAndIsLookedForEveryMinute(t *testing.T) {
	socket := socketPath(t)
	clock := &fakeClock{t: time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)}
	p := New(noSlurm(t, Config{GPUs: testGPUs, KubeletSocket: socket, Now: clock.now}))
	defer p.Close()
	if c := p.Checks()[0]; !strings.Contains(c, socket) || !strings.Contains(c, "not found") {
		t.Errorf("check line %q should name the socket and say it is missing", c)
	}
	if got := collect(t, p); len(got) != 0 {
		t.Errorf("no kubelet, yet owners %+v", got)
	}

	// The kubelet starts; gputop notices on its next look, a minute after
	// the last, and not before.
	srv := &kubeletServer{}
	srv.set(&podresources.ListPodResourcesResponse{PodResources: []*podresources.PodResources{
		pod("ml", "late", container("c", "nvidia.com/gpu", "GPU-bbbbbbbb-1111-1111-1111-111111111111")),
	}}, nil)
	serve(t, socket, srv)
	clock.t = clock.t.Add(59 * time.Second)
	if got := collect(t, p); len(got) != 0 || srv.called() != 0 {
		t.Errorf("looked again within the minute: owners %+v, %d calls", got, srv.called())
	}
	clock.t = clock.t.Add(time.Second)
	if got := collect(t, p); len(got) != 1 || got[0].Pod != "late" {
		t.Errorf("a minute later: owners %+v, want pod late", got)
	}
}

func TestRefusedKubeletSocketIsNoError(t *testing.T) {
	socket := socketPath(t)
	// A socket file with no one listening: a kubelet that died.
	lis, err := net.Listen("unix", socket)
	if err != nil {
		t.Fatal(err)
	}
	lis.(*net.UnixListener).SetUnlinkOnClose(false)
	lis.Close()

	clock := &fakeClock{t: time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)}
	p := New(noSlurm(t, Config{GPUs: testGPUs, KubeletSocket: socket, Now: clock.now}))
	defer p.Close()
	if got := collect(t, p); len(got) != 0 {
		t.Errorf("refused, yet owners %+v", got)
	}
	if !p.kube.due(clock.t.Add(time.Minute)) || p.kube.due(clock.t.Add(30*time.Second)) {
		t.Error("a refused socket should be tried again after a minute, and not before")
	}
}

func TestKubeletAnswersAreBoundedAndCleaned(t *testing.T) {
	socket := socketPath(t)
	srv := &kubeletServer{}
	srv.set(&podresources.ListPodResourcesResponse{PodResources: []*podresources.PodResources{
		pod("ns\x1b]0;pwned\x07", "evil\x1b[31m-pod\n", container("c\u009b2J", "nvidia.com/gpu", "GPU-aaaaaaaa-0000-0000-0000-000000000000")),
	}}, nil)
	serve(t, socket, srv)
	p := New(noSlurm(t, Config{GPUs: testGPUs, KubeletSocket: socket}))
	defer p.Close()
	got := collect(t, p)
	want := []timeline.Owner{{GPU: 0, Pod: "evil-pod", Namespace: "ns", Container: "c"}}
	if !slices.Equal(got, want) {
		t.Errorf("owners:\n got %+v\nwant %+v", got, want)
	}

	// An answer past 4 MiB is refused by the client, not read into memory.
	huge := make([]*podresources.PodResources, 0, 20000)
	for i := range 20000 {
		huge = append(huge, pod("ns", strings.Repeat("p", 250)+string(rune('a'+i%26)),
			container("c", "nvidia.com/gpu", "GPU-aaaaaaaa-0000-0000-0000-000000000000")))
	}
	srv.set(&podresources.ListPodResourcesResponse{PodResources: huge}, nil)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if r, err := p.Collect(ctx); err == nil || len(r.Owners) != 0 {
		t.Errorf("a 5 MB answer: owners %d, err %v; want an error and none", len(r.Owners), err)
	}

	// A kubelet that answers with an error is a probe error, in one line.
	srv.set(nil, status.Error(codes.Internal, "boom\x1b[2J"))
	if _, err := p.Collect(ctx); err == nil || strings.ContainsRune(err.Error(), 0x1b) {
		t.Errorf("an Internal error: %v; want an error without escapes", err)
	}
}

// The session closes the probe while the sampler's Collect still waits on
// the kubelet (Sampler.Close waits for no probe): the call ends, nothing
// races (go test -race).
func TestCloseDuringACollect(t *testing.T) {
	socket := socketPath(t)
	srv := &kubeletServer{hold: make(chan struct{}), release: make(chan struct{})}
	srv.set(&podresources.ListPodResourcesResponse{}, nil)
	serve(t, socket, srv)
	p := New(noSlurm(t, Config{GPUs: testGPUs, KubeletSocket: socket}))
	done := make(chan error)
	go func() {
		_, err := p.Collect(context.Background())
		done <- err
	}()
	<-srv.hold
	if err := p.Close(); err != nil {
		t.Errorf("Close: %v", err)
	}
	close(srv.release)
	<-done // an error or not: the call ended
}
