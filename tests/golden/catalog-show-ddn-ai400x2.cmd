# A storage appliance shows its read and write rates and usable capacity with their source and confidence.
catalog show ddn-ai400x2
