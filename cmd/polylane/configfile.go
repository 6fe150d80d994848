package main

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"net/url"
	"os"
	"path/filepath"
	"strings"
)

// configFileEnv names the configuration file; --config is its flag.
const configFileEnv = "POLYLANE_CONFIG_FILE"

// maxConfigFile bounds the configuration file; a private key is a few
// kilobytes.
const maxConfigFile = 1 << 20

// configFileSetting is the row of the settings table for the file itself.
// The file is read before the other settings (see withConfigFile), so its
// set function has nothing left to do.
var configFileSetting = setting{Env: configFileEnv, Flag: "config", Commands: bothCommands,
	Usage: "File of KEY=VALUE lines naming settings of this table (polylane setup writes one); the environment and flags win over it. One that holds a secret must be readable by its owner only (chmod 600).",
	set:   func(*Config, string) error { return nil }}

// withConfigFile returns getenv backed by the configuration file that
// --config (when flagSet) or POLYLANE_CONFIG_FILE names: a variable that is
// set and not empty wins over the file. Without a file it returns getenv.
func withConfigFile(getenv func(string) string, flagSet bool, flagValue *string) (func(string) string, error) {
	path, name := getenv(configFileEnv), configFileEnv
	if flagSet && flagValue != nil {
		path, name = *flagValue, "--config"
	}
	if path == "" {
		return getenv, nil
	}
	values, err := readConfigFile(path)
	if err != nil {
		return nil, &configError{name: name, msg: err.Error()}
	}
	return func(key string) string {
		if v := getenv(key); v != "" {
			return v
		}
		return values[key]
	}, nil
}

// readConfigFile reads a configuration file. Every key must be a setting of
// the table; a file that holds a secret must not be readable by others.
// A relative POLYLANE_GITHUB_PRIVATE_KEY_FILE is taken from the file's
// directory.
func readConfigFile(path string) (map[string]string, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("open config file: %w", err)
	}
	defer f.Close()
	info, err := f.Stat()
	if err != nil {
		return nil, fmt.Errorf("stat config file: %w", err)
	}
	if !info.Mode().IsRegular() {
		return nil, fmt.Errorf("%s is not a regular file", path)
	}
	values, err := parseConfigFile(io.LimitReader(f, maxConfigFile+1), path)
	if err != nil {
		return nil, err
	}
	if holdsSecret(values) {
		if err := privateFile(path, info.Mode(), "holds secrets"); err != nil {
			return nil, err
		}
	}
	if kf := values["POLYLANE_GITHUB_PRIVATE_KEY_FILE"]; kf != "" && !filepath.IsAbs(kf) {
		values["POLYLANE_GITHUB_PRIVATE_KEY_FILE"] = filepath.Join(filepath.Dir(path), kf)
	}
	return values, nil
}

// privateFile refuses a file that holds a secret (what says how) when
// anyone but its owner may read or change it: its group as much as other
// users.
func privateFile(path string, mode os.FileMode, what string) error {
	if perm := mode.Perm(); perm&0o077 != 0 {
		return fmt.Errorf("%s %s but other users may read it (mode %04o): chmod 600 %s", path, what, perm, path)
	}
	return nil
}

// readPrivateKey reads a private key file that only its owner may read.
func readPrivateKey(path string) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("read key: %w", err)
	}
	defer f.Close()
	info, err := f.Stat()
	if err != nil {
		return nil, fmt.Errorf("read key: %w", err)
	}
	if err := privateFile(path, info.Mode(), "is a private key"); err != nil {
		return nil, err
	}
	b, err := io.ReadAll(io.LimitReader(f, maxConfigFile))
	if err != nil {
		return nil, fmt.Errorf("read key: %w", err)
	}
	return b, nil
}

// holdsSecret reports whether values set a secret setting, or a database
// URL with a password.
func holdsSecret(values map[string]string) bool {
	for _, s := range settings {
		if s.Secret && values[s.Env] != "" {
			return true
		}
	}
	if u, err := url.Parse(values["POLYLANE_DATABASE_URL"]); err == nil && u.User != nil {
		if _, set := u.User.Password(); set {
			return true
		}
	}
	return false
}

// knownSetting reports whether key is a setting the file may give.
func knownSetting(key string) bool {
	if key == configFileEnv {
		return false
	}
	for _, s := range settings {
		if s.Env == key {
			return true
		}
	}
	return false
}

// parseConfigFile reads KEY=VALUE lines: blank lines and lines starting
// with # are skipped, "export " before a key is allowed, a value may be
// double-quoted (escapes \n \r \t \" \\) or single-quoted (literal), and an
// unquoted value is taken as it is, without the blanks around it. Messages
// name the line, never a value.
func parseConfigFile(r io.Reader, name string) (map[string]string, error) {
	values := map[string]string{}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64<<10), maxConfigFile+1)
	total := 0
	for n := 1; sc.Scan(); n++ {
		total += len(sc.Bytes()) + 1
		if total > maxConfigFile {
			return nil, fmt.Errorf("%s: larger than %d bytes", name, maxConfigFile)
		}
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		key, value, err := parseConfigLine(line)
		if err != nil {
			return nil, fmt.Errorf("%s:%d: %w", name, n, err)
		}
		if !knownSetting(key) {
			return nil, fmt.Errorf("%s:%d: %s is not a setting of polylane (see polylane serve --help)", name, n, key)
		}
		if _, dup := values[key]; dup {
			return nil, fmt.Errorf("%s:%d: %s is set twice", name, n, key)
		}
		values[key] = value
	}
	if err := sc.Err(); err != nil {
		if errors.Is(err, bufio.ErrTooLong) {
			return nil, fmt.Errorf("%s: larger than %d bytes", name, maxConfigFile)
		}
		return nil, fmt.Errorf("read %s: %w", name, err)
	}
	return values, nil
}

// parseConfigLine splits one KEY=VALUE line.
func parseConfigLine(line string) (key, value string, err error) {
	line = strings.TrimPrefix(line, "export ")
	key, raw, ok := strings.Cut(line, "=")
	key = strings.TrimSpace(key)
	if !ok || !validKey(key) {
		return "", "", errors.New("want KEY=VALUE with KEY in capitals, digits and _")
	}
	raw = strings.TrimSpace(raw)
	switch {
	case strings.HasPrefix(raw, `"`):
		value, err = unquoteDouble(raw)
	case strings.HasPrefix(raw, "'"):
		if len(raw) < 2 || !strings.HasSuffix(raw, "'") || strings.Contains(raw[1:len(raw)-1], "'") {
			return "", "", fmt.Errorf("%s: unterminated single-quoted value", key)
		}
		value = raw[1 : len(raw)-1]
	default:
		value = raw
	}
	if err != nil {
		return "", "", fmt.Errorf("%s: %w", key, err)
	}
	return key, value, nil
}

func validKey(k string) bool {
	if k == "" {
		return false
	}
	for _, c := range k {
		if !(c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_') {
			return false
		}
	}
	return true
}

// unquoteDouble reads a double-quoted value with its escapes; nothing may
// follow the closing quote.
func unquoteDouble(raw string) (string, error) {
	var b strings.Builder
	for i := 1; i < len(raw); i++ {
		c := raw[i]
		switch {
		case c == '"':
			if i != len(raw)-1 {
				return "", errors.New("text after the closing quote")
			}
			return b.String(), nil
		case c == '\\' && i+1 < len(raw):
			i++
			switch raw[i] {
			case 'n':
				b.WriteByte('\n')
			case 'r':
				b.WriteByte('\r')
			case 't':
				b.WriteByte('\t')
			case '"', '\\':
				b.WriteByte(raw[i])
			default:
				b.WriteByte('\\')
				b.WriteByte(raw[i])
			}
		default:
			b.WriteByte(c)
		}
	}
	return "", errors.New("unterminated double-quoted value")
}

// formatConfigValue writes a value so that parseConfigFile (and Docker
// Compose's env_file) read it back unchanged: bare when it is plain, in
// single quotes when it is one line, else double-quoted with escapes.
func formatConfigValue(v string) string {
	plain := v != ""
	for _, c := range v {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || strings.ContainsRune("._:/@+=,-", c)) {
			plain = false
			break
		}
	}
	switch {
	case plain:
		return v
	case !strings.ContainsAny(v, "'\n\r"):
		return "'" + v + "'"
	}
	r := strings.NewReplacer(`\`, `\\`, `"`, `\"`, "\n", `\n`, "\r", `\r`, "\t", `\t`)
	return `"` + r.Replace(v) + `"`
}
