// Command gsgen writes Go backend services whose parts start and stop in the
// right order. See README.md.
package main

import "os"

func main() {
	os.Exit(run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}
