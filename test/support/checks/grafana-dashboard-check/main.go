// Decodes each Grafana dashboard JSON named on the command line strictly into the Grafana
// Foundation SDK's dashboard types, its panels' options and field configs into their plugins'
// types and its targets into the Prometheus query type: a field the schema does not know, or a
// value of the wrong type, is reported and the exit status is 1.
package main

import (
	"fmt"
	"os"

	"github.com/grafana/grafana-foundation-sdk/go/cog"
	"github.com/grafana/grafana-foundation-sdk/go/cog/plugins"
	"github.com/grafana/grafana-foundation-sdk/go/dashboard"
)

func main() {
	plugins.RegisterDefaultPlugins()
	failed := false
	for _, file := range os.Args[1:] {
		raw, err := os.ReadFile(file)
		if err == nil {
			var decoded dashboard.Dashboard
			err = decoded.UnmarshalJSONStrict(raw)
		}
		// The SDK returns its error list even when it is empty.
		if list, ok := err.(cog.BuildErrors); ok && len(list) == 0 {
			err = nil
		}
		if err != nil {
			fmt.Printf("%s: %v\n", file, err)
			failed = true
			continue
		}
		fmt.Printf("%s: valid\n", file)
	}
	if failed {
		os.Exit(1)
	}
}
