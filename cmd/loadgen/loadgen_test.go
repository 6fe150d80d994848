package loadgen

import (
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"sync"
	"sync/atomic"
	"testing"
)

// TestPoolDelivers sends 200 requests over 8 connections to a real
// server: each arrives whole, with its headers, and no more connections
// are opened than the pool holds.
func TestPoolDelivers(t *testing.T) {
	var conns atomic.Int32
	var mu sync.Mutex
	seen := map[string]string{}
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, err := io.ReadAll(r.Body)
		if err != nil || r.Method != http.MethodPost || r.URL.Path != "/hook" {
			http.Error(w, "bad", http.StatusBadRequest)
			return
		}
		mu.Lock()
		seen[r.Header.Get("X-Id")] = string(body)
		mu.Unlock()
		w.WriteHeader(http.StatusAccepted)
		fmt.Fprintln(w, "ok")
	}))
	srv.Config.ConnState = func(_ net.Conn, s http.ConnState) {
		if s == http.StateNew {
			conns.Add(1)
		}
	}
	srv.Start()
	defer srv.Close()
	pool, err := NewPool(srv.URL+"/hook", 8)
	if err != nil {
		t.Fatal(err)
	}
	defer pool.Close()
	var wg sync.WaitGroup
	for i := range 200 {
		req, err := Request(srv.URL+"/hook", [][2]string{{"X-Id", fmt.Sprint(i)}, {"Content-Type", "text/plain"}},
			[]byte(fmt.Sprintf("body %d %s", i, make([]byte, i*100))))
		if err != nil {
			t.Fatal(err)
		}
		wg.Go(func() {
			status, took, err := pool.Do(req)
			if err != nil || status != http.StatusAccepted || took <= 0 {
				t.Errorf("request %d: status %d, %s, %v", i, status, took, err)
			}
		})
	}
	wg.Wait()
	if len(seen) != 200 {
		t.Fatalf("the server saw %d requests, want 200", len(seen))
	}
	for i := range 200 {
		if want := fmt.Sprintf("body %d %s", i, make([]byte, i*100)); seen[fmt.Sprint(i)] != want {
			t.Fatalf("request %d arrived with a body of %d bytes, want %d", i, len(seen[fmt.Sprint(i)]), len(want))
		}
	}
	if n := conns.Load(); n != 8 {
		t.Fatalf("%d connections opened, want the pool's 8", n)
	}
}

func TestClosedConnectionIsAnError(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Connection", "close")
		w.WriteHeader(http.StatusServiceUnavailable)
	}))
	defer srv.Close()
	c, err := Dial(srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	req, err := Request(srv.URL+"/", nil, []byte("x"))
	if err != nil {
		t.Fatal(err)
	}
	status, err := c.Do(req)
	if status != http.StatusServiceUnavailable || err == nil {
		t.Fatalf("status %d, err %v: want 503 and an error for the closed connection", status, err)
	}
}

func TestRequestRefusesOtherSchemes(t *testing.T) {
	for _, u := range []string{"https://example.com/x", "/relative", "http://"} {
		if _, err := Request(u, nil, nil); err == nil {
			t.Errorf("%q accepted", u)
		}
	}
}

// TestSenderModes sends the same prepared requests with the pool and with
// net/http's client: the server sees the same requests either way.
func TestSenderModes(t *testing.T) {
	for _, mode := range []string{"", "net/http"} {
		t.Run("client="+mode, func(t *testing.T) {
			t.Setenv("POLYLANE_BENCH_CLIENT", mode)
			var got []string
			var mu sync.Mutex
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				body, _ := io.ReadAll(r.Body)
				mu.Lock()
				got = append(got, r.Header.Get("X-Id")+":"+string(body))
				mu.Unlock()
				w.WriteHeader(http.StatusAccepted)
			}))
			defer srv.Close()
			s, err := NewSender(srv.URL+"/hook", 2)
			if err != nil {
				t.Fatal(err)
			}
			defer s.Close()
			if (s.pool == nil) != (mode == "net/http") {
				t.Fatalf("mode %q: pool %v", mode, s.pool != nil)
			}
			for i := range 5 {
				p, err := Prepare(srv.URL+"/hook", [][2]string{{"X-Id", fmt.Sprint(i)}}, []byte(fmt.Sprint("b", i)))
				if err != nil {
					t.Fatal(err)
				}
				status, took, err := s.Send(p)
				if err != nil || status != http.StatusAccepted || took <= 0 {
					t.Fatalf("send %d: %d, %s, %v", i, status, took, err)
				}
			}
			if len(got) != 5 || got[0] != "0:b0" || got[4] != "4:b4" {
				t.Fatalf("server saw %q", got)
			}
		})
	}
}
