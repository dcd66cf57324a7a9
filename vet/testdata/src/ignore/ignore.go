package ignore

import "net/http"

func servers() []*http.Server {
	return []*http.Server{
		//gsgen:ignore httpserver a debug listener on localhost, behind no load balancer
		{Addr: "127.0.0.1:6060"},

		//gsgen:ignore closeorder stacked directives reach the first line of code
		//gsgen:ignore httpserver the same debug listener
		{Addr: "127.0.0.1:6061"},

		{Addr: "127.0.0.1:6062"}, //gsgen:ignore httpserver a trailing directive covers its own line

		//gsgen:ignore httpserver // want `gsgen:ignore httpserver gives no reason`
		{Addr: ":8080"}, // want `http.Server without ReadHeaderTimeout`

		//gsgen:ignore http-server the rule's name is misspelt // want `unknown rule "http-server"`
		{Addr: ":8081"}, // want `http.Server without ReadHeaderTimeout`

		// gsgen:ignore httpserver with a space it is an ordinary comment // want `a space after // makes this an ordinary comment`
		{Addr: ":8082"}, // want `http.Server without ReadHeaderTimeout`

		//gsgen:ignore // want `gsgen:ignore names no rule`
		{Addr: ":8083"}, // want `http.Server without ReadHeaderTimeout`

		//gsgen:ignore kafkawriter another rule's directive silences nothing here
		{Addr: ":8084"}, // want `http.Server without ReadHeaderTimeout`

		//gsgen:ignored is some other word, not a directive
		{Addr: ":8085"}, // want `http.Server without ReadHeaderTimeout`
	}
}
