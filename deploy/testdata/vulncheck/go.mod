module example.com/vulncheck

go 1.22

require golang.org/x/text v0.3.6
