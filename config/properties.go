package config

import (
	"fmt"
	"strconv"
	"strings"
	"unicode/utf16"
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
// blanks dropped), and the escapes \t \n \r \f \uXXXX (two of them a
// surrogate pair: one character) and \<char>. Lines end at \n, \r\n or a
// lone \r. The text is ISO-8859-1, one character per byte, as
// Properties.load(InputStream) reads it and so every Kafka tool (Kafka's
// Utils.loadProps): a file means to us what it means to the Java clients,
// a UTF-8 "é" two characters to both. A key set twice keeps its last
// value, as in Java. It reads nothing.
func ParseProperties(data []byte) ([]PropertyEntry, error) {
	latin1 := make([]rune, len(data))
	for i, b := range data {
		latin1[i] = rune(b)
	}
	text := strings.ReplaceAll(strings.ReplaceAll(string(latin1), "\r\n", "\n"), "\r", "\n")
	lines := strings.Split(text, "\n")
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
	// Java's characters are UTF-16 units: \uD83D\uDE00 is one character.
	var units []uint16
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		i += n
		if r != '\\' || i == len(s) {
			units = utf16.AppendRune(units, r)
			continue
		}
		r, n = utf8.DecodeRuneInString(s[i:])
		i += n
		switch r {
		case 't':
			r = '\t'
		case 'n':
			r = '\n'
		case 'r':
			r = '\r'
		case 'f':
			r = '\f'
		case 'u':
			if i+4 > len(s) {
				return "", fmt.Errorf(`malformed \uXXXX escape`)
			}
			u, err := strconv.ParseUint(s[i:i+4], 16, 16)
			if err != nil {
				return "", fmt.Errorf(`malformed \uXXXX escape`)
			}
			units = append(units, uint16(u))
			i += 4
			continue
		}
		units = utf16.AppendRune(units, r)
	}
	return string(utf16.Decode(units)), nil
}
