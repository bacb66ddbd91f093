package config

import (
	"io"
	"sync"

	"github.com/sirupsen/logrus"
)

// compose-go reports some findings (an obsolete `version`, "yes" for a
// boolean) through logrus on stderr, where they land before and apart from
// any diagnostic. They are collected instead and given as warnings at the
// HCL attribute that named the compose file.

type composeLog struct {
	mu   sync.Mutex
	msgs []string
}

func (*composeLog) Levels() []logrus.Level {
	return []logrus.Level{logrus.PanicLevel, logrus.FatalLevel, logrus.ErrorLevel, logrus.WarnLevel}
}

func (l *composeLog) Fire(e *logrus.Entry) error {
	l.mu.Lock()
	l.msgs = append(l.msgs, e.Message)
	l.mu.Unlock()
	return nil
}

// take returns and forgets what was logged since the last take.
func (l *composeLog) take() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	m := l.msgs
	l.msgs = nil
	return m
}

var composeLogs = sync.OnceValue(func() *composeLog {
	l := &composeLog{}
	logrus.SetOutput(io.Discard) // nothing of this process logs through logrus but compose-go
	logrus.AddHook(l)
	return l
})
