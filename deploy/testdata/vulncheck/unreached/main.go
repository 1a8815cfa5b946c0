// Command unreached imports the same vulnerable golang.org/x/text/language
// as reachable but calls none of its vulnerable functions: scripts/govulncheck.sh
// passes it, as it passes the exporter's modules.
package main

import (
	"fmt"

	"golang.org/x/text/language"
)

func main() {
	fmt.Println(language.English.String())
}
