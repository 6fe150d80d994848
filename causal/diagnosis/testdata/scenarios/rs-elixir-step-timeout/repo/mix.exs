defmodule FieldNotes.MixProject do
  use Mix.Project

  def project do
    [app: :fieldnotes, version: "0.31.0", elixir: "~> 1.17", deps: deps()]
  end

  defp deps, do: [{:phoenix, "~> 1.7.14"}, {:ecto_sqlite3, "~> 0.17"}]
end
