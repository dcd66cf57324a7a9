module example.com/nobuild

go 1.26
