package main

import (
	"errors"
	"strconv"
	"strings"

	"github.com/spf13/pflag"

	"github.com/gsgen-dev/gsgen/generator/problem"
)

// A message repeats at most a few dozen characters of anything the user
// typed (problem.Quote): a 50 MB argument must not make a 50 MB message.
// gsgen's own messages quote values that way; these catch the messages of
// cobra and pflag, which repeat arguments, flag names and values whole.

// shortFlagError is a flag parsing error that repeats its value or flag
// name shortened.
func shortFlagError(err error) error {
	var invalid *pflag.InvalidValueError
	var unknown *pflag.NotExistError
	var syntax *pflag.InvalidSyntaxError
	var echoed string
	switch {
	case errors.As(err, &invalid):
		echoed = invalid.GetValue()
	case errors.As(err, &unknown):
		echoed = unknown.GetSpecifiedName()
	case errors.As(err, &syntax):
		echoed = syntax.GetSpecifiedFlag()
	default:
		return err
	}
	return errors.New(shortenEchoes(err.Error(), []string{echoed}))
}

// shortenEchoes shortens in msg every long value of echoed it repeats,
// quoted or not.
func shortenEchoes(msg string, echoed []string) string {
	for _, v := range echoed {
		if short := problem.Shorten(v); short != v {
			msg = strings.ReplaceAll(msg, strconv.Quote(v), strconv.Quote(short))
			msg = strings.ReplaceAll(msg, v, short)
		}
	}
	return msg
}
