package analysis

import "testing"

func TestMinerGroups(t *testing.T) {
	msgs := []struct {
		text  string
		group string
	}{
		{"Received disconnect from 10.0.0.1: 11: Bye Bye [preauth]", "disc"},
		{"Received disconnect from 10.0.0.9: 11: Bye Bye [preauth]", "disc"},
		{"Failed password for root from 1.2.3.4 port 22 ssh2", "pw"},
		{"Failed password for admin from 5.6.7.8 port 2200 ssh2", "pw"},
		{"Connection closed by 1.2.3.4 [preauth]", "closed"},
		{"proxy.example.com:5070 open through proxy proxy.example.com:5070 HTTPS", "https"},
		{"proxy.example.com:5070 close, 0 bytes sent, 0 bytes received, lifetime 00:01", "close"},
		{"proxy.example.com:5071 open through proxy proxy.example.com:5071 HTTPS", "https"},
		{"Failed to get next element [HRESULT = 0x800f080d - CBS_E_MANIFEST_INVALID_ITEM]", "next"},
		{"Failed to internally open package. [HRESULT = 0x800f0805 - CBS_E_INVALID_PACKAGE]", "open"},
	}
	m := NewMiner(0)
	byGroup := map[string]int{}
	ids := map[int]string{}
	for _, msg := range msgs {
		id := m.Add(msg.text)
		if want, ok := byGroup[msg.group]; ok && want != id {
			t.Errorf("%q went to template %d (%s), want %d", msg.text, id, m.Template(id), want)
		}
		if g, ok := ids[id]; ok && g != msg.group {
			t.Errorf("%q joined group %q", msg.text, g)
		}
		byGroup[msg.group], ids[id] = id, msg.group
	}
	if got := m.Template(byGroup["pw"]); got != "Failed password for <*> from <*> port <*> ssh2" {
		t.Errorf("template = %q", got)
	}
	if m.Len() != 7 {
		t.Errorf("%d templates, want 7", m.Len())
	}
}
