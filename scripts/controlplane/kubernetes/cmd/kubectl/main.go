// kubectl at the API server's own version (Debian's kubernetes-client is far outside the version skew).
package main

import (
	"os"

	"k8s.io/component-base/cli"
	"k8s.io/component-base/logs"
	"k8s.io/kubectl/pkg/cmd"
	"k8s.io/kubectl/pkg/cmd/util"
)

func main() {
	// Verbosity is parsed early so that klog honours -v while the command tree is built.
	logs.GlogSetter(cmd.GetLogVerbosity(os.Args)) //nolint:errcheck // kubectl itself ignores it too
	if err := cli.RunNoErrOutput(cmd.NewDefaultKubectlCommand()); err != nil {
		util.CheckErr(err)
	}
}
