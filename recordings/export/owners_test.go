package export

import (
	"bufio"
	"bytes"
	"encoding/csv"
	"encoding/json"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/gputop-dev/gputop/recordings"
	"github.com/gputop-dev/gputop/recordings/recordingstest"
	"github.com/gputop-dev/gputop/timeline"
)

// ownedFile is a recording of 2 GPUs whose owners are read every 5 s
// from the sample at firstOwners on: GPU0 shared by two pods, GPU1 held by
// a Slurm job until 60 s after that, then by no one.
func ownedFile(t *testing.T, firstOwners int) string {
	t.Helper()
	ss := recordingstest.Samples(firstOwners+120, 2)
	for i := firstOwners; i < len(ss); i += 5 {
		ss[i].Owners = []timeline.Owner{
			{GPU: 0, Pod: "a", Namespace: "team-a", Container: "c"},
			{GPU: 0, Pod: "b", Namespace: "team-b", Container: "c"},
		}
		if i < firstOwners+60 {
			ss[i].Owners = append(ss[i].Owners, timeline.Owner{GPU: 1, Job: "77", User: "eve", Partition: "gpu"})
		}
	}
	path := filepath.Join(t.TempDir(), "owned.gtr")
	writeFile(t, path, recordings.Header{Version: "v-test", Info: recordingstest.Info(2, time.Second), Start: recordingstest.T0}, ss)
	return path
}

func ownedExport(t *testing.T, path string, f Format) []byte {
	t.Helper()
	r, err := recordings.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	var b bytes.Buffer
	if err := Write(r, &b, f); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// GPU rows carry their owners' pod, namespace, container, job, user and
// partition, several joined by "|", from the reading that named them until
// the next; a GPU no one holds has none.
func TestExportOwners(t *testing.T) {
	path := ownedFile(t, 0)
	records, err := csv.NewReader(bytes.NewReader(ownedExport(t, path, CSV))).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	head := records[0]
	want := []string{"owner_pod", "owner_namespace", "owner_container", "owner_job", "owner_user", "owner_partition"}
	if len(head) != int(numColumns) || !slices.Equal(head[len(head)-6:], want) {
		t.Fatalf("header ends %v", head[len(head)-8:])
	}
	col := func(name string) int { return slices.Index(head, name) }
	seen := map[string]int{}
	for _, rec := range records[1:] {
		dev, elapsed := rec[col("device")], rec[col("elapsed_s")]
		owners := rec[col("owner_pod")] + "/" + rec[col("owner_namespace")] + "/" + rec[col("owner_job")] + "/" + rec[col("owner_user")]
		seen[dev+" "+owners]++
		if dev == "gpu1" && elapsed == "30" && owners != "//77/eve" {
			t.Errorf("GPU1 at 30 s: %q", owners)
		}
		if dev == "gpu1" && elapsed == "90" && owners != "///" {
			t.Errorf("GPU1 at 90 s, let go at 60 s: %q", owners)
		}
		if dev == "host" && owners != "///" {
			t.Errorf("a host row with owners: %q", owners)
		}
	}
	if seen["gpu0 a|b/team-a|team-b//"] != 120 || seen["gpu1 //77/eve"] != 60 || seen["gpu1 ///"] != 60 {
		t.Errorf("rows by owners: %v", seen)
	}

	// JSONL: the keys on GPU rows that have owners, and only there.
	sc := bufio.NewScanner(bytes.NewReader(ownedExport(t, path, JSONL)))
	sc.Buffer(nil, 1<<20)
	keyed := map[string]int{}
	for sc.Scan() {
		var row map[string]any
		if err := json.Unmarshal(sc.Bytes(), &row); err != nil {
			t.Fatal(err)
		}
		if _, ok := row["owner_pod"]; ok {
			keyed[row["device"].(string)]++
			if row["device"] == "gpu1" && (row["owner_job"] != "77" || row["owner_pod"] != nil) {
				t.Errorf("GPU1's row %v", row)
			}
		}
	}
	if keyed["gpu0"] != 120 || keyed["gpu1"] != 60 || len(keyed) != 2 {
		t.Errorf("rows with owner keys: %v", keyed)
	}
}

// The CSV header is written before the rows: it has the owner columns
// where the first two minutes name an owner. Owners first named later are
// in the JSONL only, and the CSV is the one of a recording without them.
func TestExportOwnersNamedLate(t *testing.T) {
	path := ownedFile(t, 150)
	records, err := csv.NewReader(bytes.NewReader(ownedExport(t, path, CSV))).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	if len(records[0]) != int(numColumns-ownerColumns) {
		t.Errorf("the header has %d columns, want %d", len(records[0]), numColumns-ownerColumns)
	}
	if !bytes.Contains(ownedExport(t, path, JSONL), []byte(`"owner_job":"77"`)) {
		t.Error("the JSONL lacks the owners")
	}
}
