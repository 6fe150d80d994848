package main

import (
	"bytes"
	"errors"
	"strings"
	"testing"
	"time"
)

// TestLLMSettings reads the narrator's settings and refuses inconsistent
// ones, naming the setting at fault and never echoing the key.
func TestLLMSettings(t *testing.T) {
	base := map[string]string{"POLYLANE_WEBHOOK_SECRET": "s"}
	with := func(kv ...string) map[string]string { return envWith(base, kv...) }
	tests := []struct {
		name    string
		args    []string
		env     map[string]string
		wantErr string
	}{
		{name: "off by default", env: with()},
		{name: "on", env: with("POLYLANE_LLM_BASE_URL", "http://127.0.0.1:11434/v1", "POLYLANE_LLM_MODEL", "llama3.1:8b",
			"POLYLANE_LLM_API_KEY", "sk-secret-value", "POLYLANE_LLM_TIMEOUT", "3s", "POLYLANE_LLM_MAX_TOKENS", "500", "POLYLANE_LLM_DAILY_TOKENS", "1000")},
		{name: "flags", args: []string{"--llm-base-url", "https://api.example.com/v1", "--llm-model", "m", "--llm-timeout", "1m"}, env: with()},
		{name: "no model", env: with("POLYLANE_LLM_BASE_URL", "http://127.0.0.1:11434/v1"), wantErr: "POLYLANE_LLM_MODEL: "},
		{name: "model without url", env: with("POLYLANE_LLM_MODEL", "m"), wantErr: "POLYLANE_LLM_BASE_URL: is required"},
		{name: "key without url", env: with("POLYLANE_LLM_API_KEY", "sk-secret-value"), wantErr: "POLYLANE_LLM_BASE_URL: is required"},
		{name: "bad url", env: with("POLYLANE_LLM_BASE_URL", "ftp://x", "POLYLANE_LLM_MODEL", "m"), wantErr: "POLYLANE_LLM_BASE_URL: "},
		{name: "bad timeout", env: with("POLYLANE_LLM_TIMEOUT", "forever"), wantErr: "POLYLANE_LLM_TIMEOUT: "},
		{name: "bad tokens", args: []string{"--llm-max-tokens", "3"}, env: with(), wantErr: "--llm-max-tokens: "},
		{name: "bad budget", env: with("POLYLANE_LLM_DAILY_TOKENS", "-1"), wantErr: "POLYLANE_LLM_DAILY_TOKENS: "},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c, err := loadConfig(cmdServe, "", tc.args, envOf(tc.env), &bytes.Buffer{})
			if tc.wantErr != "" {
				var ce *configError
				if !errors.As(err, &ce) || !strings.HasPrefix(err.Error(), tc.wantErr) {
					t.Fatalf("error %v, want prefix %q", err, tc.wantErr)
				}
				if strings.Contains(err.Error(), "sk-secret-value") {
					t.Fatal("the API key is in the error")
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			switch tc.name {
			case "off by default":
				if c.LLM.BaseURL != "" || c.LLM.Timeout != 20*time.Second || c.LLM.MaxTokens != 800 || c.LLM.DailyTokens != 200000 {
					t.Fatalf("defaults %+v", c.LLM)
				}
			case "on":
				if c.LLM.Model != "llama3.1:8b" || c.LLM.APIKey != "sk-secret-value" || c.LLM.Timeout != 3*time.Second || c.LLM.MaxTokens != 500 || c.LLM.DailyTokens != 1000 {
					t.Fatalf("settings %+v", c.LLM.Model)
				}
			case "flags":
				if c.LLM.BaseURL != "https://api.example.com/v1" || c.LLM.Timeout != time.Minute {
					t.Fatalf("flags %+v", c.LLM.BaseURL)
				}
			}
		})
	}
	var help bytes.Buffer
	if _, err := loadConfig(cmdServe, "", []string{"--help"}, envOf(with("POLYLANE_LLM_API_KEY", "sk-secret-value")), &help); !errors.Is(err, errHelp) {
		t.Fatal(err)
	}
	if strings.Contains(help.String(), "sk-secret-value") || !strings.Contains(help.String(), "POLYLANE_LLM_API_KEY") || strings.Contains(help.String(), "--llm-api-key") {
		t.Fatal("help shows the key, or a flag for it, or not the variable")
	}
}
