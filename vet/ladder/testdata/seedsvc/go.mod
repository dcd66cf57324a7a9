module example.com/seedsvc

go 1.26
