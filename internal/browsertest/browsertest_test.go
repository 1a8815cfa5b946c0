package browsertest

import (
	"bytes"
	"image"
	"image/color"
	"image/png"
	"testing"
)

// TestColouredPixels: a white canvas with a grey grid and black text counts
// nothing; a series stroke counts its pixels.
func TestColouredPixels(t *testing.T) {
	img := image.NewRGBA(image.Rect(0, 0, 100, 50))
	for y := range 50 {
		for x := range 100 {
			c := color.RGBA{255, 255, 255, 255}
			switch {
			case y%10 == 0:
				c = color.RGBA{235, 235, 235, 255} // grid
			case x < 20 && y < 8:
				c = color.RGBA{0, 0, 0, 255} // text
			}
			img.Set(x, y, c)
		}
	}
	count := func() int {
		var buf bytes.Buffer
		if err := png.Encode(&buf, img); err != nil {
			t.Fatal(err)
		}
		n, err := ColouredPixels(buf.Bytes())
		if err != nil {
			t.Fatal(err)
		}
		return n
	}
	if n := count(); n != 0 {
		t.Errorf("axes and grid only: %d coloured pixels, want 0", n)
	}
	for x := range 100 {
		img.Set(x, 25, color.RGBA{0x1f, 0x77, 0xb4, 255}) // a series line
	}
	if n := count(); n != 100 {
		t.Errorf("one line: %d coloured pixels, want 100", n)
	}
}
