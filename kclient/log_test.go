package kclient

import (
	"testing"
	"time"
)

func TestLogLimit(t *testing.T) {
	l := &logLimit{last: map[string]time.Time{}}
	now := time.Unix(1000, 0)
	if !l.allow("a", now) || l.allow("a", now.Add(59*time.Second)) || !l.allow("b", now) || !l.allow("a", now.Add(time.Minute)) {
		t.Error("logLimit does not let each message through once a minute")
	}
}
