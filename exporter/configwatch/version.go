package configwatch

import (
	"github.com/twmb/franz-go/pkg/kmsg"
	"github.com/twmb/franz-go/pkg/kversion"
)

// metadataVersion is the KRaft feature whose supported range identifies a
// broker's release: every release since 3.3 supports a higher maximum.
const metadataVersion = "metadata.version"

// releasesByMetadataVersion maps the highest metadata.version a broker
// supports to its release ("v4.1"), from franz-go's tables of releases.
func releasesByMetadataVersion() map[int16]string {
	out := map[int16]string{}
	for _, s := range kversion.VersionStrings() {
		vs := kversion.FromString(s)
		if vs == nil {
			continue
		}
		vs.EachSupportedFeature(func(name string, _, maxLevel int16) {
			if name == metadataVersion {
				if _, dup := out[maxLevel]; !dup {
					out[maxLevel] = s
				}
			}
		})
	}
	return out
}

// brokerVersion names the Kafka release of a broker from its ApiVersions
// answer: by the metadata.version range it supports (KRaft brokers), else by
// franz-go's guess from the API key ranges (older and ZooKeeper brokers; a
// release newer than franz-go knows reads "at least v…").
func brokerVersion(resp *kmsg.ApiVersionsResponse, releases map[int16]string) string {
	for _, f := range resp.SupportedFeatures {
		if f.Name == metadataVersion {
			if v, ok := releases[f.MaxVersion]; ok {
				return v
			}
		}
	}
	return kversion.FromApiVersionsResponse(resp).VersionGuess()
}
