package configwatch

import (
	"testing"

	"github.com/twmb/franz-go/pkg/kmsg"
	"github.com/twmb/franz-go/pkg/kversion"
)

// apiVersions is the ApiVersions answer a broker of release vs gives.
func apiVersions(vs *kversion.Versions, withFeatures bool) *kmsg.ApiVersionsResponse {
	resp := kmsg.NewPtrApiVersionsResponse()
	vs.EachMaxKeyVersion(func(k, v int16) {
		ak := kmsg.NewApiVersionsResponseApiKey()
		ak.ApiKey, ak.MaxVersion = k, v
		resp.ApiKeys = append(resp.ApiKeys, ak)
	})
	if withFeatures {
		vs.EachSupportedFeature(func(name string, lo, hi int16) {
			f := kmsg.NewApiVersionsResponseSupportedFeature()
			f.Name, f.MinVersion, f.MaxVersion = name, lo, hi
			resp.SupportedFeatures = append(resp.SupportedFeatures, f)
		})
	}
	return resp
}

func TestBrokerVersion(t *testing.T) {
	releases := releasesByMetadataVersion()
	if releases[27] != "v4.1" {
		t.Fatalf("metadata.version 27 maps to %q, want v4.1 (Kafka 4.1)", releases[27])
	}
	cases := []struct {
		name string
		resp *kmsg.ApiVersionsResponse
		want string
	}{
		{"KRaft 4.1 by metadata.version", apiVersions(kversion.V4_1_0(), true), "v4.1"},
		{"KRaft 3.9 by metadata.version", apiVersions(kversion.V3_9_0(), true), "v3.9"},
		{"ZooKeeper 2.8 by API versions", apiVersions(kversion.V2_8_0(), false), "v2.8"},
	}
	for _, c := range cases {
		if got := brokerVersion(c.resp, releases); got != c.want {
			t.Errorf("%s: version %q, want %q", c.name, got, c.want)
		}
	}
}
