// etcd for the test control plane, built from go.etcd.io/etcd/server/v3 (its own main package calls the same function).
package main

import (
	"os"

	"go.etcd.io/etcd/server/v3/etcdmain"
)

func main() {
	etcdmain.Main(os.Args)
}
