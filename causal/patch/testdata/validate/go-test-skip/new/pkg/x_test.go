package x

func TestA(t *testing.T) {
	t.Skip("flaky")
	if got := f(); got != 1 {
		t.Errorf("f() = %d", got)
	}
}
