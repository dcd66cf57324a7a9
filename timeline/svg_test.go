package timeline

import (
	"encoding/xml"
	"errors"
	"io"
	"path/filepath"
	"strings"
	"testing"
)

// The SVG must open anywhere, offline: well-formed XML, no script, nothing
// fetched from outside (links, images, fonts, CSS imports).
func TestSVGIsStandalone(t *testing.T) {
	logs, _ := filepath.Glob("testdata/*.log")
	for _, log := range logs {
		t.Run(filepath.Base(log), func(t *testing.T) {
			svg := draw(t, log).SVG()
			d := xml.NewDecoder(strings.NewReader(svg))
			root := true
			for {
				tok, err := d.Token()
				if errors.Is(err, io.EOF) {
					break
				}
				if err != nil {
					t.Fatalf("not XML: %v", err)
				}
				el, ok := tok.(xml.StartElement)
				if !ok {
					continue
				}
				if root && (el.Name.Local != "svg" || el.Name.Space != "http://www.w3.org/2000/svg" || attr(el, "viewBox") != "0 0 1920 1080") {
					t.Errorf("root element %v %v, want an svg of 1920×1080", el.Name, el.Attr)
				}
				root = false
				switch el.Name.Local {
				case "script", "image", "use", "a", "foreignObject", "iframe", "link":
					t.Errorf("<%s> in the SVG", el.Name.Local)
				}
				for _, a := range el.Attr {
					if a.Name.Local == "href" || strings.HasPrefix(a.Name.Local, "on") || strings.Contains(a.Value, "url(") {
						t.Errorf("<%s %s=%q>: a reference or a handler", el.Name.Local, a.Name.Local, a.Value)
					}
				}
			}
			for _, s := range []string{"@import", "url(", "@font-face", "<script", "javascript:"} {
				if strings.Contains(svg, s) {
					t.Errorf("the SVG has %q", s)
				}
			}
		})
	}
}

func attr(el xml.StartElement, name string) string {
	for _, a := range el.Attr {
		if a.Name.Local == name {
			return a.Value
		}
	}
	return ""
}
