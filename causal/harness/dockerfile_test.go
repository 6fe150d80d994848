package harness

import (
	"reflect"
	"testing"
)

func TestDockerInstructions(t *testing.T) {
	cases := []struct {
		name string
		in   string
		want []DockerInstruction
	}{
		{"continuation and comment", "FROM golang:1.26 AS build\n# a comment\nRUN apt-get update && \\\n    # inside\n    apt-get install -y git\n",
			[]DockerInstruction{{1, "FROM", "golang:1.26 AS build", 1}, {3, "RUN", "apt-get update &&   apt-get install -y git", 5}}},
		{"escape directive", "# escape=`\nfrom alpine\nrun echo a `\n  b\n",
			[]DockerInstruction{{2, "FROM", "alpine", 2}, {3, "RUN", "echo a  b", 4}}},
		{"heredoc body skipped", "FROM alpine\nRUN <<EOF\nCOPY not-an-instruction\nEOF\nCOPY . /src\n",
			[]DockerInstruction{{1, "FROM", "alpine", 1}, {2, "RUN", "<<EOF", 4}, {5, "COPY", ". /src", 5}}},
		{"CRLF and blank lines", "FROM alpine\r\n\r\nENV A=1\r\n", []DockerInstruction{{1, "FROM", "alpine", 1}, {3, "ENV", "A=1", 3}}},
		{"unterminated continuation", "RUN make \\", []DockerInstruction{{1, "RUN", "make", 1}}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if got := DockerInstructions([]byte(tc.in)); !reflect.DeepEqual(got, tc.want) {
				t.Errorf("got %+v\nwant %+v", got, tc.want)
			}
		})
	}
}
