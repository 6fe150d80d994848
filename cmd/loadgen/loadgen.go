// Package loadgen sends prepared HTTP/1.1 requests over keep-alive
// connections with as little work of its own as it can, for the webhook
// benchmarks. On a small machine the load generator shares the CPU with the
// server it measures; net/http's client costs about 75 µs per 25 kB
// delivery on the reference machine (it copies each body through a 4 kB
// buffer, seven writes, and runs two goroutines per connection), which is a
// quarter of what the server itself spends. Here each request is built
// before the clock starts and written with one write call, and the answer
// is read through one buffered reader.
//
// A Sender made with POLYLANE_BENCH_CLIENT=net/http in the environment
// sends with net/http's client instead, to compare the two.
package loadgen

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"time"
)

// Request returns the bytes of a POST request to target (an http:// URL)
// with the headers given, in order, and the body.
func Request(target string, headers [][2]string, body []byte) ([]byte, error) {
	u, err := url.Parse(target)
	if err != nil {
		return nil, err
	}
	if u.Scheme != "http" || u.Host == "" {
		return nil, fmt.Errorf("loadgen: %q is not an http:// URL", target)
	}
	var b bytes.Buffer
	b.Grow(len(body) + 512)
	fmt.Fprintf(&b, "POST %s HTTP/1.1\r\nHost: %s\r\nContent-Length: %d\r\n", u.RequestURI(), u.Host, len(body))
	for _, h := range headers {
		fmt.Fprintf(&b, "%s: %s\r\n", h[0], h[1])
	}
	b.WriteString("\r\n")
	b.Write(body)
	return b.Bytes(), nil
}

// Conn is one keep-alive connection that carries one request at a time.
type Conn struct {
	nc net.Conn
	r  *bufio.Reader
}

// Dial connects to the host of an http:// URL.
func Dial(target string) (*Conn, error) {
	u, err := url.Parse(target)
	if err != nil {
		return nil, err
	}
	nc, err := net.DialTimeout("tcp", u.Host, 10*time.Second)
	if err != nil {
		return nil, err
	}
	return &Conn{nc: nc, r: bufio.NewReaderSize(nc, 4096)}, nil
}

// Close closes the connection.
func (c *Conn) Close() error { return c.nc.Close() }

// Do writes a prepared request and reads its whole answer, within 30 s, and
// returns the status code. A server that closes the connection after the
// answer ends the connection's use: Do reports it as an error.
func (c *Conn) Do(req []byte) (int, error) {
	if err := c.nc.SetDeadline(time.Now().Add(30 * time.Second)); err != nil {
		return 0, err
	}
	if _, err := c.nc.Write(req); err != nil {
		return 0, err
	}
	resp, err := http.ReadResponse(c.r, nil)
	if err != nil {
		return 0, err
	}
	_, err = io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	if err != nil {
		return 0, err
	}
	if resp.Close {
		return resp.StatusCode, errors.New("loadgen: the server closed the connection")
	}
	return resp.StatusCode, nil
}

// Pool is a fixed set of connections to one server.
type Pool struct {
	free chan *Conn
	all  []*Conn
}

// NewPool dials n connections to target.
func NewPool(target string, n int) (*Pool, error) {
	p := &Pool{free: make(chan *Conn, n)}
	for range n {
		c, err := Dial(target)
		if err != nil {
			p.Close()
			return nil, err
		}
		p.all = append(p.all, c)
		p.free <- c
	}
	return p, nil
}

// Do sends a request on a free connection, waiting for one, and returns
// the status and the time from the call to the last byte of the answer (so
// waiting for a connection counts).
func (p *Pool) Do(req []byte) (int, time.Duration, error) {
	start := time.Now()
	c := <-p.free
	status, err := c.Do(req)
	took := time.Since(start)
	p.free <- c
	return status, took, err
}

// Close closes every connection.
func (p *Pool) Close() {
	for _, c := range p.all {
		_ = c.Close()
	}
}

// Prepared is a POST request built once and sent later.
type Prepared struct {
	target  string
	headers [][2]string
	body    []byte
	raw     []byte // the whole request as written on a connection
}

// Prepare builds a POST request to target with the headers, in order, and
// the body.
func Prepare(target string, headers [][2]string, body []byte) (*Prepared, error) {
	raw, err := Request(target, headers, body)
	if err != nil {
		return nil, err
	}
	return &Prepared{target: target, headers: headers, body: body, raw: raw}, nil
}

// Sender sends prepared requests to one server over at most conns
// connections: a Pool, or net/http's client when POLYLANE_BENCH_CLIENT is
// "net/http".
type Sender struct {
	pool   *Pool
	client *http.Client
}

// NewSender dials the connections (the pool's; net/http's client dials as
// it goes).
func NewSender(target string, conns int) (*Sender, error) {
	if os.Getenv("POLYLANE_BENCH_CLIENT") == "net/http" {
		return &Sender{client: &http.Client{Timeout: 30 * time.Second,
			Transport: &http.Transport{MaxIdleConnsPerHost: conns, MaxConnsPerHost: conns, DisableCompression: true}}}, nil
	}
	pool, err := NewPool(target, conns)
	if err != nil {
		return nil, err
	}
	return &Sender{pool: pool}, nil
}

// Send sends a request and returns its status and answer time (with the
// pool, waiting for a free connection counts).
func (s *Sender) Send(p *Prepared) (int, time.Duration, error) {
	if s.pool != nil {
		return s.pool.Do(p.raw)
	}
	req, err := http.NewRequest(http.MethodPost, p.target, bytes.NewReader(p.body))
	if err != nil {
		return 0, 0, err
	}
	for _, h := range p.headers {
		req.Header.Set(h[0], h[1])
	}
	start := time.Now()
	resp, err := s.client.Do(req)
	if err != nil {
		return 0, 0, err
	}
	_, err = io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	return resp.StatusCode, time.Since(start), err
}

// Close closes the connections.
func (s *Sender) Close() {
	if s.pool != nil {
		s.pool.Close()
		return
	}
	s.client.CloseIdleConnections()
}
