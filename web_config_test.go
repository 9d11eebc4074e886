package main

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"fmt"
	"io"
	"math/big"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"golang.org/x/crypto/bcrypt"
)

// webConfig is an exporter-toolkit web configuration with TLS and one
// basic-auth user, made in a temporary directory for one test.
type webConfig struct {
	path     string         // the web configuration file
	certPath string         // the server's certificate, which is its own CA
	roots    *x509.CertPool // trusts the server's certificate, and nothing else
	user     string
	password string
}

// newWebConfig makes a throwaway self-signed certificate for 127.0.0.1
// (ECDSA P-256, valid for an hour) and a bcrypt hash of a random password,
// and writes them as exporter-toolkit reads them. Nothing comes from
// outside the test.
func newWebConfig(t *testing.T) webConfig {
	t.Helper()
	dir := t.TempDir()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	now := time.Now()
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(now.UnixNano()),
		Subject:      pkix.Name{CommonName: "gputop test"},
		NotBefore:    now.Add(-time.Minute),
		NotAfter:     now.Add(time.Hour),
		KeyUsage:     x509.KeyUsageDigitalSignature | x509.KeyUsageCertSign,
		ExtKeyUsage:  []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
		IPAddresses:  []net.IP{net.IPv4(127, 0, 0, 1)},
		IsCA:         true, BasicConstraintsValid: true,
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	keyDER, err := x509.MarshalECPrivateKey(key)
	if err != nil {
		t.Fatal(err)
	}
	certPEM := pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der})
	write := func(name string, data []byte) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, data, 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	certPath := write("cert.pem", certPEM)
	write("key.pem", pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: keyDER}))
	password := rand.Text()
	hash, err := bcrypt.GenerateFromPassword([]byte(password), bcrypt.MinCost)
	if err != nil {
		t.Fatal(err)
	}
	// Relative paths: exporter-toolkit reads them from the file's directory.
	cfg := fmt.Sprintf("tls_server_config:\n  cert_file: cert.pem\n  key_file: key.pem\nbasic_auth_users:\n  prometheus: %s\n", hash)
	roots := x509.NewCertPool()
	roots.AppendCertsFromPEM(certPEM)
	return webConfig{path: write("web.yml", []byte(cfg)), certPath: certPath, roots: roots, user: "prometheus", password: password}
}

// get fetches url with client, with basic auth when user is not "": the
// status and body, or the error.
func get(client *http.Client, url, user, password string) (int, string, error) {
	req, err := http.NewRequest("GET", url, nil)
	if err != nil {
		return 0, "", err
	}
	if user != "" {
		req.SetBasicAuth(user, password)
	}
	resp, err := client.Do(req)
	if err != nil {
		return 0, "", err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	return resp.StatusCode, string(body), err
}

// With --web.config.file, /metrics is served over TLS only, and only to
// the user it names: serve, and record with --listen (the live view's is
// TestLiveViewWebConfig).
func TestWebConfigGivesTLSAndBasicAuth(t *testing.T) {
	isolateMarks(t)
	wc := newWebConfig(t)
	for _, cmd := range [][]string{
		{"serve", "--demo"},
		{"record", "--demo", "-o", filepath.Join(t.TempDir(), "r.gtr")},
	} {
		t.Run(cmd[0], func(t *testing.T) {
			addr := freeLoopbackAddr(t)
			te := newTestEnv()
			done := te.start(append(cmd, "--interval", "200ms", "--listen", addr, "--web.config.file", wc.path)...)
			defer func() {
				te.sigs <- syscall.SIGTERM
				if code := waitExit(t, done, te); code != exitOK {
					t.Errorf("exit %d; stderr:\n%s", code, te.err.String())
				}
			}()
			tlsClient := &http.Client{Timeout: 5 * time.Second, Transport: &http.Transport{
				TLSClientConfig: &tls.Config{RootCAs: wc.roots, MinVersion: tls.VersionTLS12}}}
			url := "https://" + addr + "/metrics"

			// With the credentials, over TLS that verifies against the
			// test's certificate: the metrics, once the GPUs are found.
			var code int
			var body string
			var err error
			deadline := time.Now().Add(20 * time.Second)
			for time.Now().Before(deadline) {
				code, body, err = get(tlsClient, url, wc.user, wc.password)
				if err == nil && code == http.StatusOK && strings.Contains(body, "DCGM_FI_DEV_GPU_UTIL{") {
					break
				}
				time.Sleep(100 * time.Millisecond)
			}
			if err != nil || code != http.StatusOK || !strings.Contains(body, "DCGM_FI_DEV_FB_FREE{") {
				t.Fatalf("with credentials: status %d, error %v; stderr:\n%s", code, err, te.err.String())
			}

			for _, bad := range []struct{ what, user, password string }{
				{"without credentials", "", ""},
				{"with a wrong password", wc.user, wc.password + "x"},
				{"with an unknown user", "root", wc.password},
			} {
				code, body, err := get(tlsClient, url, bad.user, bad.password)
				if err != nil || code != http.StatusUnauthorized || strings.Contains(body, "DCGM_") {
					t.Errorf("%s: status %d, error %v, want 401 and no metrics", bad.what, code, err)
				}
			}

			// Plain HTTP gets no metrics, with or without the credentials.
			plain := &http.Client{Timeout: 5 * time.Second}
			if code, body, err := get(plain, "http://"+addr+"/metrics", wc.user, wc.password); err == nil && (code == http.StatusOK || strings.Contains(body, "DCGM_")) {
				t.Errorf("plain HTTP: status %d with metrics", code)
			}
			// Nor does a client that does not trust the certificate.
			untrusting := &http.Client{Timeout: 5 * time.Second, Transport: &http.Transport{}}
			if _, _, err := get(untrusting, url, wc.user, wc.password); err == nil {
				t.Error("a client without the certificate got an answer: not TLS, or not this certificate")
			}
		})
	}
}

// The real Prometheus scrapes a gputop serve behind TLS and basic auth as
// a monitoring stack would (scheme https, the CA, the user): up is 1 and
// the GPUs arrive; a second job without the password is refused (up 0).
func TestPrometheusScrapesOverTLSWithBasicAuth(t *testing.T) {
	isolateMarks(t)
	promBin := needPrometheus(t)
	bin := buildBinary(t)
	wc := newWebConfig(t)
	dir := t.TempDir()
	addr := freeLoopbackAddr(t)
	startGroup(t, filepath.Join(dir, "serve.log"), bin, "serve", "--demo", "--listen", addr, "--web.config.file", wc.path)
	passwordFile := filepath.Join(dir, "password")
	if err := os.WriteFile(passwordFile, []byte(wc.password), 0o600); err != nil {
		t.Fatal(err)
	}
	config := fmt.Sprintf(`global:
  scrape_interval: 1s
  scrape_timeout: 900ms
scrape_configs:
  - job_name: gputop
    scheme: https
    tls_config: {ca_file: %q}
    basic_auth: {username: %q, password_file: %q}
    static_configs: [{targets: [%q]}]
  - job_name: nopassword
    scheme: https
    tls_config: {ca_file: %q}
    static_configs: [{targets: [%q]}]
`, wc.certPath, wc.user, passwordFile, addr, wc.certPath, addr)
	promAddr := startPrometheus(t, promBin, dir, config)

	up := func(job string) string {
		if v := promQueryValues(promAddr, fmt.Sprintf("up{job=%q}", job)); len(v) > 0 {
			return v[0]
		}
		return ""
	}
	deadline := time.Now().Add(60 * time.Second) // bounded: Prometheus starts in a few seconds
	var gpus int
	for time.Now().Before(deadline) {
		time.Sleep(time.Second)
		gpus = len(promQuery(promAddr, `DCGM_FI_DEV_FB_FREE{job="gputop"}`))
		if up("gputop") == "1" && up("nopassword") == "0" && gpus == 8 {
			return
		}
	}
	log, _ := os.ReadFile(filepath.Join(dir, "prometheus.log"))
	t.Fatalf("after 60 s: up{gputop} %q, up{nopassword} %q, GPUs %d; prometheus log tail:\n%s",
		up("gputop"), up("nopassword"), gpus, tail(string(log), 2000))
}

// The live view's --listen takes the same web configuration.
func TestLiveViewWebConfig(t *testing.T) {
	bin := buildBinary(t)
	wc := newWebConfig(t)
	dir := t.TempDir()
	addr := freeLoopbackAddr(t)
	term := newTerminal(t, 100, 30, fmt.Sprintf("XDG_RUNTIME_DIR=%s TMPDIR=%s %s --demo --listen %s --web.config.file %s --log %s; sleep 60",
		dir, dir, bin, addr, wc.path, filepath.Join(dir, "log")))
	term.waitFor("DEMO training", "GPU7", "/metrics on "+addr)
	client := &http.Client{Timeout: 5 * time.Second, Transport: &http.Transport{
		TLSClientConfig: &tls.Config{RootCAs: wc.roots, MinVersion: tls.VersionTLS12}}}
	url := "https://" + addr + "/metrics"
	var code int
	var body string
	var err error
	for deadline := time.Now().Add(20 * time.Second); time.Now().Before(deadline); time.Sleep(100 * time.Millisecond) {
		if code, body, err = get(client, url, wc.user, wc.password); err == nil && strings.Contains(body, "DCGM_FI_DEV_GPU_UTIL{") {
			break
		}
	}
	if err != nil || code != http.StatusOK || !strings.Contains(body, "DCGM_FI_DEV_GPU_UTIL{") {
		t.Fatalf("with credentials: status %d, error %v", code, err)
	}
	if code, _, err := get(client, url, "", ""); err != nil || code != http.StatusUnauthorized {
		t.Errorf("without credentials: status %d, error %v, want 401", code, err)
	}
	if code, body, err := get(&http.Client{Timeout: 5 * time.Second}, "http://"+addr+"/metrics", wc.user, wc.password); err == nil && (code == http.StatusOK || strings.Contains(body, "DCGM_")) {
		t.Errorf("plain HTTP: status %d with metrics", code)
	}
	term.keys("q")
}
