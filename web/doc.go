// Package web embeds the dashboard's templates and static assets.
package web
