package main

import (
	"context"
	"fmt"
	"os"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"
)

func main() {
	for _, a := range os.Args[1:] {
		cl, _ := kgo.NewClient(kgo.SeedBrokers(a))
		adm := kadm.NewClient(cl)
		ctx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
		md, err := adm.BrokerMetadata(ctx)
		cancel()
		fmt.Println(a, md.Brokers.NodeIDs(), md.Controller, err)
		cl.Close()
	}
}
