package webhook_test

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"github.com/polylane/polylane/server"
	"github.com/polylane/polylane/server/webhook"
	"github.com/polylane/polylane/store/storetest"
)

// serveWebhook runs the webhook behind server.Serve on a loopback port,
// with the server's timeouts (zero: the defaults) and the handler's cap.
func serveWebhook(t *testing.T, timeout time.Duration, maxInFlight int) string {
	t.Helper()
	st := storetest.OpenSQLite(t)
	h, err := webhook.New(webhook.Options{Secret: secret, Store: st, MaxInFlight: maxInFlight})
	if err != nil {
		t.Fatal(err)
	}
	srv := server.New(server.Options{Logger: zerolog.Nop(), Checker: st, ReadTimeout: timeout, WriteTimeout: 2 * timeout,
		IdleTimeout: timeout})
	srv.Method(http.MethodPost, "/webhooks/github", h)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- srv.Serve(ctx, ln) }()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Error(err)
		}
	})
	return ln.Addr().String()
}

// deliveryHead is the start of a delivery announcing a 4 kB body.
func deliveryHead(addr string) string {
	return "POST /webhooks/github HTTP/1.1\r\nHost: " + addr + "\r\nContent-Type: application/json\r\n" +
		"X-GitHub-Event: workflow_run\r\nX-GitHub-Delivery: slow\r\nX-Hub-Signature-256: " + sign(nil) +
		"\r\nContent-Length: 4096\r\n\r\n"
}

// waitClosed reads the connection until the server closes it and returns
// how long that took, or fails the test after limit.
func waitClosed(t *testing.T, conn net.Conn, limit time.Duration) time.Duration {
	t.Helper()
	start := time.Now()
	if err := conn.SetReadDeadline(start.Add(limit)); err != nil {
		t.Fatal(err)
	}
	_, err := io.Copy(io.Discard, conn)
	took := time.Since(start)
	if errors.Is(err, os.ErrDeadlineExceeded) {
		t.Fatalf("the server still held the connection after %s", took.Round(time.Millisecond))
	}
	return took
}

// TestStalledRequestsAreClosed opens raw connections that stop sending:
// in the headers, in a delivery's body, and after a complete delivery
// (idle). The server closes each within its timeout, not when the client
// pleases.
func TestStalledRequestsAreClosed(t *testing.T) {
	const timeout = 400 * time.Millisecond
	addr := serveWebhook(t, timeout, 0)
	tests := []struct {
		name string
		send func(w *bufio.Writer, r *bufio.Reader) error
	}{
		{"headers stop arriving", func(w *bufio.Writer, _ *bufio.Reader) error {
			_, err := w.WriteString("POST /webhooks/github HTTP/1.1\r\nHost: " + addr + "\r\nX-GitHub-")
			return err
		}},
		{"body stops arriving", func(w *bufio.Writer, _ *bufio.Reader) error {
			_, err := w.WriteString(deliveryHead(addr) + `{"action":"completed","workflow_run":{`)
			return err
		}},
		{"idle after a delivery", func(w *bufio.Writer, r *bufio.Reader) error {
			if _, err := w.WriteString(strings.Replace(deliveryHead(addr), "4096", "0", 1)); err != nil {
				return err
			}
			if err := w.Flush(); err != nil {
				return err
			}
			resp, err := http.ReadResponse(r, nil)
			if err != nil {
				return err
			}
			defer resp.Body.Close()
			_, err = io.Copy(io.Discard, resp.Body)
			return err
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			conn, err := net.Dial("tcp", addr)
			if err != nil {
				t.Fatal(err)
			}
			defer conn.Close()
			w, r := bufio.NewWriter(conn), bufio.NewReader(conn)
			if err := tc.send(w, r); err != nil {
				t.Fatal(err)
			}
			if err := w.Flush(); err != nil {
				t.Fatal(err)
			}
			if took := waitClosed(t, &bufferedConn{Conn: conn, r: r}, 20*timeout); took < timeout/2 {
				t.Errorf("closed after %s, before the timeout", took)
			}
		})
	}
}

// TestTimeoutDefaults: a request that stops arriving is closed within a
// minute by default, and the write timeout leaves room to read a body and
// answer.
func TestTimeoutDefaults(t *testing.T) {
	if server.DefaultReadTimeout > time.Minute || server.DefaultReadHeaderTimeout > server.DefaultReadTimeout ||
		server.DefaultIdleTimeout > time.Minute {
		t.Errorf("read %s, header %s, idle %s: a stalled client holds its connection too long",
			server.DefaultReadTimeout, server.DefaultReadHeaderTimeout, server.DefaultIdleTimeout)
	}
	if server.DefaultWriteTimeout < server.DefaultReadTimeout+10*time.Second {
		t.Errorf("write timeout %s leaves no room after reading for %s", server.DefaultWriteTimeout, server.DefaultReadTimeout)
	}
}

// bufferedConn reads through the bufio.Reader that may hold bytes read
// ahead.
type bufferedConn struct {
	net.Conn
	r *bufio.Reader
}

func (c *bufferedConn) Read(p []byte) (int, error) { return c.r.Read(p) }

// TestInFlightCap holds the cap's worth of deliveries with bodies that
// stall: the next delivery is answered 503 at once, and once they are
// gone a delivery is accepted again.
func TestInFlightCap(t *testing.T) {
	const limit = 3
	addr := serveWebhook(t, 5*time.Second, limit)
	var stalled []net.Conn
	for range limit {
		conn, err := net.Dial("tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		stalled = append(stalled, conn)
		if _, err := io.WriteString(conn, deliveryHead(addr)+"{"); err != nil {
			t.Fatal(err)
		}
	}
	post := func() int {
		req, _ := http.NewRequest(http.MethodPost, "http://"+addr+"/webhooks/github", strings.NewReader("{}"))
		req.Header.Set(webhook.HeaderEvent, "ping")
		req.Header.Set(webhook.HeaderDelivery, fmt.Sprintf("ping-%d", time.Now().UnixNano()))
		req.Header.Set(webhook.HeaderSignature, sign([]byte("{}")))
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp.StatusCode
	}
	deadline := time.Now().Add(5 * time.Second)
	status := post()
	for status != http.StatusServiceUnavailable && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond) // the stalled requests may not be read yet
		status = post()
	}
	if status != http.StatusServiceUnavailable {
		t.Fatalf("with %d deliveries in flight a new one answered %d, want 503", limit, status)
	}
	for _, c := range stalled {
		c.Close()
	}
	for status = post(); status == http.StatusServiceUnavailable && time.Now().Before(deadline); status = post() {
		time.Sleep(20 * time.Millisecond)
	}
	if status != http.StatusOK {
		t.Fatalf("after the stalled deliveries left, a ping answered %d, want 200", status)
	}
}
