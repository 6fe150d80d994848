import sys

import yaml
