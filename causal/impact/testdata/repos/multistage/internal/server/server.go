package server
