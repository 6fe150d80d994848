package x

func TestA(t *testing.T) {
	if f() != 1 {
		t.Fatal("bad")
	}
}
