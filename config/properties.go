package config

import (
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"
)

// PropertyEntry is one key of a Java properties file, with its line.
type PropertyEntry struct {
	Key, Value string
	Line       int
}

// ParseProperties parses the text of a java.util.Properties file (the
// client.properties users hand to kafka-producer-perf-test --producer.config
// and kcat -F): `key=value`, `key: value` or `key value` lines, `#` and `!`
// comments, a trailing backslash continuing a line (the next line's leading
// blanks dropped), and the escapes \t \n \r \f \uXXXX and \<char>. A key set
// twice keeps its last value, as in Java. It reads nothing.
func ParseProperties(data []byte) ([]PropertyEntry, error) {
	if !utf8.Valid(data) {
		return nil, fmt.Errorf("a properties file: not UTF-8 text")
	}
	lines := strings.Split(strings.ReplaceAll(string(data), "\r\n", "\n"), "\n")
	var out []PropertyEntry
	index := map[string]int{}
	for i := 0; i < len(lines); i++ {
		start := i + 1
		line := strings.TrimLeft(lines[i], " \t\f")
		if line == "" || line[0] == '#' || line[0] == '!' {
			continue
		}
		// A logical line goes on while it ends in an odd number of
		// backslashes.
		for continues(line) && i+1 < len(lines) {
			i++
			line = line[:len(line)-1] + strings.TrimLeft(lines[i], " \t\f")
		}
		if continues(line) {
			line = line[:len(line)-1]
		}
		key, value, err := splitProperty(line)
		if err != nil {
			return nil, fmt.Errorf("line %d: %w", start, err)
		}
		e := PropertyEntry{Key: key, Value: value, Line: start}
		if j, ok := index[key]; ok {
			out[j] = e
			continue
		}
		index[key] = len(out)
		out = append(out, e)
	}
	return out, nil
}

func continues(line string) bool {
	n := 0
	for n < len(line) && line[len(line)-1-n] == '\\' {
		n++
	}
	return n%2 == 1
}

// splitProperty splits a logical line at the first unescaped '=', ':' or
// blank, and unescapes both parts.
func splitProperty(line string) (key, value string, err error) {
	end := len(line)
	for i := 0; i < len(line); i++ {
		c := line[i]
		if c == '\\' {
			i++
			continue
		}
		if c == '=' || c == ':' || c == ' ' || c == '\t' || c == '\f' {
			end = i
			break
		}
	}
	rest := strings.TrimLeft(line[end:], " \t\f")
	if rest != "" && (rest[0] == '=' || rest[0] == ':') {
		rest = strings.TrimLeft(rest[1:], " \t\f")
	}
	if key, err = unescapeProperty(line[:end]); err != nil {
		return "", "", err
	}
	if value, err = unescapeProperty(rest); err != nil {
		return "", "", fmt.Errorf("%s: %w", key, err)
	}
	return key, value, nil
}

func unescapeProperty(s string) (string, error) {
	if !strings.Contains(s, `\`) {
		return s, nil
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] != '\\' || i+1 == len(s) {
			b.WriteByte(s[i])
			continue
		}
		i++
		switch c := s[i]; c {
		case 't':
			b.WriteByte('\t')
		case 'n':
			b.WriteByte('\n')
		case 'r':
			b.WriteByte('\r')
		case 'f':
			b.WriteByte('\f')
		case 'u':
			if i+5 > len(s) {
				return "", fmt.Errorf(`malformed \uXXXX escape`)
			}
			r, err := strconv.ParseUint(s[i+1:i+5], 16, 32)
			if err != nil {
				return "", fmt.Errorf(`malformed \uXXXX escape`)
			}
			b.WriteRune(rune(r))
			i += 4
		default:
			b.WriteByte(c)
		}
	}
	return b.String(), nil
}
