package x

func TestA(t *testing.T) {
	if got := f(); got != 1 {
		t.Errorf("f() = %d", got)
	}
}
